"""BigVGAN vocoder: the anti-aliased activation (alias_free_torch UpSample1d / LowPassFilter1d) pads the
signal with mode='replicate' and convolves it with `self.filter.expand(C, -1, -1)` where `_, C, _ = x.shape`;
with a dynamic mel length the TorchScript exporter loses the shape after the Pad and fails with
"Unsupported: ONNX export of convolution for kernel of unknown shape".

Source: https://github.com/pytorch/pytorch/issues/98497
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

CLASS = "views"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "frames"}}
BLIND = "domains-23"


def kaiser_sinc_filter1d(cutoff, half_width, kernel_size):  # return filter [1,1,kernel_size]
    even = (kernel_size % 2 == 0)
    half_size = kernel_size // 2
    delta_f = 4 * half_width
    A = 2.285 * (half_size - 1) * math.pi * delta_f + 7.95
    if A > 50.:
        beta = 0.1102 * (A - 8.7)
    elif A >= 21.:
        beta = 0.5842 * (A - 21) ** 0.4 + 0.07886 * (A - 21.)
    else:
        beta = 0.
    window = torch.kaiser_window(kernel_size, beta=beta, periodic=False)
    if even:
        time = (torch.arange(-half_size, half_size) + 0.5)
    else:
        time = torch.arange(kernel_size) - half_size
    if cutoff == 0:
        filter_ = torch.zeros_like(time)
    else:
        filter_ = 2 * cutoff * window * torch.sinc(2 * cutoff * time)
        filter_ /= filter_.sum()
    filter = filter_.view(1, 1, kernel_size)
    return filter


class LowPassFilter1d(nn.Module):
    def __init__(self, cutoff=0.5, half_width=0.6, stride: int = 1, padding: bool = True,
                 padding_mode: str = 'replicate', kernel_size: int = 12):
        super().__init__()
        self.kernel_size = kernel_size
        self.even = (kernel_size % 2 == 0)
        self.pad_left = kernel_size // 2 - int(self.even)
        self.pad_right = kernel_size // 2
        self.stride = stride
        self.padding = padding
        self.padding_mode = padding_mode
        filter = kaiser_sinc_filter1d(cutoff, half_width, kernel_size)
        self.register_buffer("filter", filter)

    # input [B, C, T]
    def forward(self, x):
        _, C, _ = x.shape
        if self.padding:
            x = F.pad(x, (self.pad_left, self.pad_right), mode=self.padding_mode)
        out = F.conv1d(x, self.filter.expand(C, -1, -1), stride=self.stride, groups=C)
        return out


class UpSample1d(nn.Module):
    def __init__(self, ratio=2, kernel_size=None):
        super().__init__()
        self.ratio = ratio
        self.kernel_size = int(6 * ratio // 2) * 2 if kernel_size is None else kernel_size
        self.stride = ratio
        self.pad = self.kernel_size // ratio - 1
        self.pad_left = self.pad * self.stride + (self.kernel_size - self.stride) // 2
        self.pad_right = self.pad * self.stride + (self.kernel_size - self.stride + 1) // 2
        filter = kaiser_sinc_filter1d(cutoff=0.5 / ratio, half_width=0.6 / ratio, kernel_size=self.kernel_size)
        self.register_buffer("filter", filter)

    # x: [B, C, T]
    def forward(self, x):
        _, C, _ = x.shape
        x = F.pad(x, (self.pad, self.pad), mode='replicate')
        x = self.ratio * F.conv_transpose1d(
            x, self.filter.expand(C, -1, -1), stride=self.stride, groups=C)
        x = x[..., self.pad_left:-self.pad_right]
        return x


class DownSample1d(nn.Module):
    def __init__(self, ratio=2, kernel_size=None):
        super().__init__()
        self.ratio = ratio
        self.kernel_size = int(6 * ratio // 2) * 2 if kernel_size is None else kernel_size
        self.lowpass = LowPassFilter1d(cutoff=0.5 / ratio, half_width=0.6 / ratio,
                                       stride=ratio, kernel_size=self.kernel_size)

    def forward(self, x):
        return self.lowpass(x)


class Snake(nn.Module):
    def __init__(self, in_features, alpha=1.0):
        super().__init__()
        self.alpha = nn.Parameter(torch.ones(in_features) * alpha)

    def forward(self, x):
        alpha = self.alpha.unsqueeze(0).unsqueeze(-1)  # line up with x to [B, C, T]
        return x + (1.0 / (alpha + 1e-9)) * torch.pow(torch.sin(x * alpha), 2)


class Activation1d(nn.Module):
    def __init__(self, activation, up_ratio: int = 2, down_ratio: int = 2,
                 up_kernel_size: int = 12, down_kernel_size: int = 12):
        super().__init__()
        self.act = activation
        self.upsample = UpSample1d(up_ratio, up_kernel_size)
        self.downsample = DownSample1d(down_ratio, down_kernel_size)

    # x: [B, C, T]
    def forward(self, x):
        x = self.upsample(x)
        x = self.act(x)
        x = self.downsample(x)
        return x


class BigVGANStage(nn.Module):
    """conv_pre -> ups.0 (ConvTranspose1d, x4) -> AMP-style residual with anti-aliased Snake -> conv_post."""

    def __init__(self, num_mels=16, ch=32):
        super().__init__()
        self.conv_pre = nn.Conv1d(num_mels, ch, 7, 1, padding=3)
        self.ups = nn.ModuleList([nn.ModuleList([nn.ConvTranspose1d(ch, ch // 2, 8, 4, padding=2)])])
        self.convs = nn.ModuleList([nn.Conv1d(ch // 2, ch // 2, 3, 1, dilation=d, padding=d) for d in (1, 3)])
        self.activations = nn.ModuleList([Activation1d(activation=Snake(ch // 2)) for _ in range(2)])
        self.activation_post = Activation1d(activation=Snake(ch // 2))
        self.conv_post = nn.Conv1d(ch // 2, 1, 7, 1, padding=3)

    def forward(self, x):
        x = self.conv_pre(x)
        x = self.ups[0][0](x)
        for c, a in zip(self.convs, self.activations):
            xt = a(x)
            xt = c(xt)
            x = xt + x
        x = self.activation_post(x)
        x = self.conv_post(x)
        return torch.tanh(x)


def make_model():
    return BigVGANStage().eval()


def example_inputs():
    return (torch.randn(1, 16, 40),)


def other_inputs():
    return [(torch.randn(2, 16, 57),), (torch.randn(3, 16, 23),)]


def probe_inputs():
    return other_inputs()
