"""icefall Zipformer2 `Conv2dSubsampling.forward` (ASR encoder front-end, as vendored in VoxSumDroid's X-ASR
export script) ends with `assert x.size(1) == x_lens.max().item(), (x.size(1), x_lens.max())`; the export script says
torch.export cannot guard this data-dependent assert and monkey-patches `forward` with an identical copy minus the
assert before exporting the encoder.

Source: https://github.com/vieenrose/VoxSumDroid/blob/66189d1039eeccc0eb199017a7f465de5abe2809/tools/xasr-export/export_xasr.py
"""
import warnings
from typing import Tuple

import torch
from torch import Tensor, nn

CLASS = "data-dependent-exit"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch", 1: "time"}, "x_lens": {0: "batch"}}
BLIND = "domains-53"


class SwooshR(nn.Module):
    def forward(self, x: Tensor) -> Tensor:
        # logaddexp(0, x - 1) written as softplus
        return nn.functional.softplus(x - 1.0) - 0.08 * x - 0.313261687


class BiasNorm(nn.Module):
    def __init__(self, num_channels: int, channel_dim: int = -1, log_scale: float = 1.0):
        super().__init__()
        self.num_channels = num_channels
        self.channel_dim = channel_dim
        self.log_scale = nn.Parameter(torch.tensor(log_scale))
        self.bias = nn.Parameter(torch.empty(num_channels).normal_(mean=0, std=1e-4))

    def forward(self, x: Tensor) -> Tensor:
        scales = (torch.mean((x - self.bias) ** 2, dim=self.channel_dim, keepdim=True) ** -0.5) * self.log_scale.exp()
        return x * scales


class ConvNeXt(nn.Module):
    def __init__(self, channels: int, hidden_ratio: int = 3, kernel_size=(7, 7)):
        super().__init__()
        self.padding = ((kernel_size[0] - 1) // 2, (kernel_size[1] - 1) // 2)
        hidden_channels = channels * hidden_ratio
        self.depthwise_conv = nn.Conv2d(channels, channels, groups=channels, kernel_size=kernel_size,
                                        padding=self.padding)
        self.pointwise_conv1 = nn.Conv2d(channels, hidden_channels, kernel_size=1)
        self.activation = SwooshR()
        self.pointwise_conv2 = nn.Conv2d(hidden_channels, channels, kernel_size=1)

    def forward(self, x: Tensor) -> Tensor:
        bypass = x
        x = self.depthwise_conv(x)
        x = self.pointwise_conv1(x)
        x = self.activation(x)
        x = self.pointwise_conv2(x)
        return bypass + x


class Conv2dSubsampling(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, layer1_channels: int = 8,
                 layer2_channels: int = 32, layer3_channels: int = 128, dropout: float = 0.1):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(in_channels=1, out_channels=layer1_channels, kernel_size=3, padding=(0, 1)),
            SwooshR(),
            nn.Conv2d(in_channels=layer1_channels, out_channels=layer2_channels, kernel_size=3, stride=2, padding=0),
            SwooshR(),
            nn.Conv2d(in_channels=layer2_channels, out_channels=layer3_channels, kernel_size=3, stride=(1, 2)),
            SwooshR(),
        )
        self.convnext = ConvNeXt(layer3_channels, kernel_size=(7, 7))
        self.out_width = (((in_channels - 1) // 2) - 1) // 2
        self.layer3_channels = layer3_channels
        self.out = nn.Linear(self.out_width * layer3_channels, out_channels)
        self.out_norm = BiasNorm(out_channels)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, x_lens: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        # On entry, x is (N, T, idim)
        x = x.unsqueeze(1)  # (N, T, idim) -> (N, 1, T, idim) i.e., (N, C, H, W)
        x = self.conv(x)
        x = self.convnext(x)

        # Now x is of shape (N, odim, (T-7)//2, (idim-3)//4)
        b, c, t, f = x.size()

        x = x.transpose(1, 2).reshape(b, t, c * f)
        # now x: (N, (T-7)//2, out_width * layer3_channels))

        x = self.out(x)
        # Now x is of shape (N, (T-7)//2, odim)
        x = self.out_norm(x)
        x = self.dropout(x)

        if torch.jit.is_scripting() or torch.jit.is_tracing():
            x_lens = (x_lens - 7) // 2
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                x_lens = (x_lens - 7) // 2
        assert x.size(1) == x_lens.max().item(), (x.size(1), x_lens.max())

        return x, x_lens


def make_model():
    return Conv2dSubsampling(80, 192).eval()


def _inputs(n, t):
    x_lens = torch.full((n,), t, dtype=torch.int64)
    x_lens[1:] = torch.randint(t // 2, t + 1, (n - 1,))
    return (torch.randn(n, t, 80), x_lens)


def example_inputs():
    return _inputs(2, 100)


def other_inputs():
    return [_inputs(3, 151), _inputs(1, 64)]


def probe_inputs():
    return other_inputs()
