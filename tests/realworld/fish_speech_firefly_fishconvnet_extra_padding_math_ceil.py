"""Fish-Speech's Firefly VQ-GAN encoder (TTS audio codec) exported to ONNX with a dynamic frame axis: every
`FishConvNet` pads its input by `get_extra_padding_for_conv1d`, which computes
`ideal_length = (math.ceil(n_frames) - 1) * stride + ...` from `x.shape[-1]`. The fix PR says "for tracer, math.ceil
will make onnx graph become constant", so the padding is baked for the export-time length.
(The mel front end is left out: the case starts at the mel features fed to the ConvNeXt backbone and the
stride-2 downsample of `DownsampleFiniteScalarQuantize`.)

Source: https://github.com/fishaudio/fish-speech/pull/833
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"mels": {0: "batch", 2: "frames"}}
BLIND = "domains-33"


def get_extra_padding_for_conv1d(
    x: torch.Tensor, kernel_size: int, stride: int, padding_total: int = 0
) -> int:
    """See `pad_for_conv1d`."""
    length = x.shape[-1]
    n_frames = (length - kernel_size + padding_total) / stride + 1
    ideal_length = (math.ceil(n_frames) - 1) * stride + (kernel_size - padding_total)
    return ideal_length - length


def pad1d(x: torch.Tensor, paddings: tuple[int, int], mode: str = "zeros", value: float = 0.0):
    length = x.shape[-1]
    padding_left, padding_right = paddings
    assert padding_left >= 0 and padding_right >= 0, (padding_left, padding_right)
    if mode == "reflect":
        max_pad = max(padding_left, padding_right)
        extra_pad = 0
        if length <= max_pad:
            extra_pad = max_pad - length + 1
            x = F.pad(x, (0, extra_pad))
        padded = F.pad(x, paddings, mode, value)
        end = padded.shape[-1] - extra_pad
        return padded[..., :end]
    else:
        return F.pad(x, paddings, mode, value)


class FishConvNet(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, dilation=1, stride=1, groups=1):
        super(FishConvNet, self).__init__()
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size, stride=stride, dilation=dilation, groups=groups)
        self.stride = stride
        self.kernel_size = (kernel_size - 1) * dilation + 1
        self.dilation = dilation

    def forward(self, x):
        pad = self.kernel_size - self.stride
        extra_padding = get_extra_padding_for_conv1d(x, self.kernel_size, self.stride, pad)
        x = pad1d(x, (pad, extra_padding), mode="constant", value=0)
        return self.conv(x).contiguous()


class ConvNeXtBlock(nn.Module):
    def __init__(self, dim: int, layer_scale_init_value: float = 1e-6, mlp_ratio: float = 4.0, kernel_size: int = 7):
        super().__init__()
        self.dwconv = FishConvNet(dim, dim, kernel_size=kernel_size, groups=dim)  # depthwise conv
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.pwconv1 = nn.Linear(dim, int(mlp_ratio * dim))
        self.act = nn.GELU()
        self.pwconv2 = nn.Linear(int(mlp_ratio * dim), dim)
        self.gamma = nn.Parameter(layer_scale_init_value * torch.ones((dim)), requires_grad=True)

    def forward(self, x, apply_residual: bool = True):
        input = x
        x = self.dwconv(x)
        x = x.permute(0, 2, 1)  # (N, C, L) -> (N, L, C)
        x = self.norm(x)
        x = self.pwconv1(x)
        x = self.act(x)
        x = self.pwconv2(x)
        x = self.gamma * x
        x = x.permute(0, 2, 1)  # (N, L, C) -> (N, C, L)
        if apply_residual:
            x = input + x
        return x


class FireflyEncoder(nn.Module):
    def __init__(self, n_mels=16, dim=32, downsample_factor=(2, 2)):
        super().__init__()
        self.stem = FishConvNet(n_mels, dim, kernel_size=7)
        self.stage = nn.Sequential(ConvNeXtBlock(dim), ConvNeXtBlock(dim))
        self.downsample = nn.Sequential(
            *[nn.Sequential(FishConvNet(dim, dim, kernel_size=factor, stride=factor), ConvNeXtBlock(dim=dim))
              for factor in downsample_factor]
        )

    def forward(self, mels):
        encoded_features = self.stage(self.stem(mels))
        return self.downsample(encoded_features)


def make_model():
    return FireflyEncoder().eval()


def example_inputs():
    return (torch.randn(1, 16, 50),)


def other_inputs():
    return [(torch.randn(2, 16, 37),), (torch.randn(1, 16, 81),)]


def probe_inputs():
    return other_inputs()
