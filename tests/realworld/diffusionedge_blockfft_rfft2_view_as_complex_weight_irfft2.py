"""DiffusionEdge's mask-conditioned UNet has a `ResnetBlockFFT` whose second block (`BlockFFT`) is a
global spectral filter: `torch.fft.rfft2(x, dim=(2, 3), norm='ortho')`, a multiply by
`torch.view_as_complex(self.complex_weight)` and `torch.fft.irfft2(x, s=(H, W), ...)`. The report's
export (opset 16) stops at `Exporting the operator ::fft_rfft2 to ONNX opset version 16 is not
supported` in BlockFFT.

Source: https://github.com/GuHuangAI/DiffusionEdge/issues/25
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}     # h, w are baked into BlockFFT's complex_weight
BLIND = "operators-45"


class WeightStandardizedConv2d(nn.Conv2d):
    def forward(self, x):
        eps = 1e-5 if x.dtype == torch.float32 else 1e-3
        weight = self.weight
        mean = weight.mean(dim=(1, 2, 3), keepdim=True)            # einops reduce 'o ... -> o 1 1 1'
        var = weight.var(dim=(1, 2, 3), unbiased=False, keepdim=True)
        normalized_weight = (weight - mean) * (var + eps).rsqrt()
        return F.conv2d(x, normalized_weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class Block(nn.Module):
    def __init__(self, dim, dim_out, groups=8):
        super().__init__()
        self.proj = WeightStandardizedConv2d(dim, dim_out, 3, padding=1)
        self.norm = nn.GroupNorm(groups, dim_out)
        self.act = nn.SiLU()

    def forward(self, x, scale_shift=None):
        x = self.proj(x)
        x = self.norm(x)
        if scale_shift is not None:
            scale, shift = scale_shift
            x = x * (scale + 1) + shift
        return self.act(x)


class BlockFFT(nn.Module):
    def __init__(self, dim, h, w, groups=8):
        super().__init__()
        self.complex_weight = nn.Parameter(torch.randn(dim, h, w//2+1, 2, dtype=torch.float32) * 0.02)

    def forward(self, x, scale_shift=None):
        B, C, H, W = x.shape
        x = torch.fft.rfft2(x, dim=(2, 3), norm='ortho')
        x = x * torch.view_as_complex(self.complex_weight)
        x = torch.fft.irfft2(x, s=(H, W), dim=(2, 3), norm='ortho')
        x = x.reshape(B, C, H, W)
        return x


class ResnetBlockFFT(nn.Module):
    def __init__(self, dim, dim_out, h, w, *, groups=8):
        super().__init__()
        self.block1 = Block(dim, dim_out, groups=groups)
        self.block2 = BlockFFT(dim_out, h, w, groups=groups)
        self.res_conv = nn.Conv2d(dim, dim_out, 1) if dim != dim_out else nn.Identity()

    def forward(self, x):
        h = self.block1(x)
        h = self.block2(h)
        return h + self.res_conv(x)


def make_model():
    return ResnetBlockFFT(32, 64, 20, 20).eval()


def example_inputs():
    return (torch.randn(2, 32, 20, 20),)


def other_inputs():
    return [(torch.randn(3, 32, 20, 20),), (torch.randn(1, 32, 20, 20),)]


def probe_inputs():
    return other_inputs()
