"""Deblurring model exported with dynamic sizes: `torch.roll` and `torch.fft.fftn` on a dynamically sized
image (`if a.numel() == 0` guard inside `roll`'s decomposition).

Source: https://github.com/pytorch/pytorch/issues/128324
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {2: "h", 3: "w"}}


class Deblur(nn.Module):
    def forward(self, x):
        shifted = torch.roll(x, shifts=(x.shape[-2] // 2, x.shape[-1] // 2), dims=(-2, -1))
        spec = torch.fft.fftn(shifted, dim=(-2, -1))
        return spec.abs()


def make_model():
    return Deblur()


def example_inputs():
    return (torch.randn(1, 1, 8, 8),)


def other_inputs():
    return [(torch.randn(1, 1, 10, 6),), (torch.randn(1, 1, 9, 11),)]


def probe_inputs():
    return other_inputs()
