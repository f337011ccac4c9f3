"""GFNet global filter layer: `torch.fft.rfft2(x, dim=(1, 2), norm='ortho')`, multiply by
`torch.view_as_complex(self.complex_weight)`, then `torch.fft.irfft2(x, s=(a, b), ...)`;
"Exporting the operator fft_rfft2 to ONNX opset version 11 is not supported".

Source: https://github.com/onnx/onnx/issues/3573
"""
import math

import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-1"


class GlobalFilter(nn.Module):
    def __init__(self, dim, h=14, w=8):
        super().__init__()
        self.complex_weight = nn.Parameter(torch.randn(h, w, dim, 2, dtype=torch.float32) * 0.02)
        self.w = w
        self.h = h

    def forward(self, x, spatial_size=None):
        B, N, C = x.shape
        if spatial_size is None:
            a = b = int(math.sqrt(N))
        else:
            a, b = spatial_size

        x = x.view(B, a, b, C)

        x = x.to(torch.float32)

        x = torch.fft.rfft2(x, dim=(1, 2), norm='ortho')
        weight = torch.view_as_complex(self.complex_weight)
        x = x * weight
        x = torch.fft.irfft2(x, s=(a, b), dim=(1, 2), norm='ortho')

        x = x.reshape(B, N, C)

        return x


class Block(nn.Module):
    def __init__(self, dim=16, h=14, w=8):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.filter = GlobalFilter(dim, h=h, w=w)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, dim * 4), nn.GELU(), nn.Linear(dim * 4, dim))

    def forward(self, x):
        x = x + self.mlp(self.norm2(self.filter(self.norm1(x))))
        return x


def make_model():
    return Block()


def example_inputs():
    return (torch.randn(2, 196, 16),)


def other_inputs():
    return [(torch.randn(3, 196, 16),), (torch.randn(1, 196, 16),)]


def probe_inputs():
    return other_inputs()
