"""NeMo CitriNet (limited-context Squeeze-Excite): `SqueezeExcite` keeps `context_window_tensor =
torch.tensor(context_window)` and, for export, swaps in `_se_pool_step_export`, a `torch.jit.script` function
that branches on `timesteps < context_window_tensor` and pools with `int(context_window_tensor)`; the SE output
is upsampled back with `_se_context_upsample(y, timesteps, ...)`, `timesteps` taken from `x.size()` in Python.
The PR "CitriNet export fix" replaced all of this because the CitriNet ONNX export was broken.

Source: https://github.com/NVIDIA/NeMo/pull/2620
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"audio_signal": {0: "batch", 2: "time"}}
BLIND = "domains-45"


@torch.jit.script
def _se_pool_step_export(x, context_window_tensor):
    timesteps = x.shape[-1]
    if timesteps < context_window_tensor:
        y = F.adaptive_avg_pool1d(x, 1)
    elif context_window_tensor < 0:
        y = F.adaptive_avg_pool1d(x, 1)
    else:
        y = F.avg_pool1d(x, int(context_window_tensor), 1)  # [B, C, T - context_window + 1]
    return y


@torch.jit.script
def _se_context_upsample(y: torch.Tensor, timesteps: int, interpolation_mode: str, context_window: torch.Tensor):
    if context_window > 0:
        y = torch.nn.functional.interpolate(y, size=timesteps, mode=interpolation_mode)
    return y


class SqueezeExcite(nn.Module):
    def __init__(self, channels: int, reduction_ratio: int, context_window: int = -1,
                 interpolation_mode: str = 'nearest'):
        super(SqueezeExcite, self).__init__()
        self.interpolation_mode = interpolation_mode
        self.pool = None
        self.change_context_window(context_window=context_window)
        activation = nn.ReLU(inplace=True)
        self.fc = nn.Sequential(
            nn.Linear(channels, channels // reduction_ratio, bias=False),
            activation,
            nn.Linear(channels // reduction_ratio, channels, bias=False),
        )
        self.gap = nn.AdaptiveAvgPool1d(1)

    def forward(self, x):
        # The use of negative indices on the transpose allow for expanded SqueezeExcite
        batch, channels, timesteps = x.size()[:3]
        x = x.float()
        y = self._se_pool_step(x, timesteps)
        y = y.transpose(1, -1)  # [B, T - context_window + 1, C]
        y = self.fc(y)  # [B, T - context_window + 1, C]
        y = y.transpose(1, -1)  # [B, C, T - context_window + 1]

        y = _se_context_upsample(y, timesteps, self.interpolation_mode, self.context_window_tensor)

        y = torch.sigmoid(y)
        return x * y

    def _se_pool_step(self, x, timesteps):
        if timesteps < self.context_window_tensor:
            y = self.gap(x)
        else:
            y = self.pool(x)  # [B, C, T - context_window + 1]
        return y

    def _se_pool_step_export(self, x, timesteps):
        y = _se_pool_step_export(x, self.context_window_tensor)
        return y

    def change_context_window(self, context_window: int):
        self.context_window = int(context_window)
        self.context_window_tensor = torch.tensor(context_window, dtype=torch.int32)
        if self.context_window <= 0:
            self.pool = nn.AdaptiveAvgPool1d(1)  # context window = T
        else:
            self.pool = nn.AvgPool1d(self.context_window, stride=1)


class CitrinetBlock(nn.Module):
    def __init__(self, in_ch, out_ch, kernel_size, context_window):
        super().__init__()
        self.dw = nn.Conv1d(in_ch, in_ch, kernel_size, padding=kernel_size // 2, groups=in_ch)
        self.pw = nn.Conv1d(in_ch, out_ch, 1)
        self.bn = nn.BatchNorm1d(out_ch)
        self.se = SqueezeExcite(out_ch, reduction_ratio=8, context_window=context_window)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.se(self.bn(self.pw(self.dw(x)))))


class ConvASREncoder(nn.Module):
    def __init__(self, feat_in=16, filters=32, context_window=8):
        super().__init__()
        self.encoder = nn.Sequential(
            CitrinetBlock(feat_in, filters, 5, context_window),
            CitrinetBlock(filters, filters, 5, context_window),
        )

    def forward(self, audio_signal):
        return self.encoder(audio_signal)

    def _prepare_for_export(self, **kwargs):
        for m in self.modules():
            if isinstance(m, SqueezeExcite):
                m._se_pool_step = m._se_pool_step_export


def make_model():
    model = ConvASREncoder().eval()
    model._prepare_for_export()
    return model


def example_inputs():
    return (torch.randn(2, 16, 40),)


def other_inputs():
    return [(torch.randn(3, 16, 57),), (torch.randn(1, 16, 23),)]


def probe_inputs():
    return other_inputs()
