"""Swin block: pad to multiples of the window (`pad_r = (ws - W % ws) % ws`), cyclic shift with `torch.roll`,
window partition by `view`. Reported for `roll` (legacy, opset 12).

Source: https://github.com/pytorch/pytorch/issues/56355
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {1: "h", 2: "w"}}


def window_partition(x, window_size):
    B, H, W, C = x.shape
    x = x.view(B, H // window_size, window_size, W // window_size, window_size, C)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, window_size, window_size, C)


class SwinBlock(nn.Module):
    def __init__(self, dim=4, window_size=4, shift_size=2):
        super().__init__()
        self.window_size, self.shift_size = window_size, shift_size
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, H, W, C = x.shape
        pad_r = (self.window_size - W % self.window_size) % self.window_size
        pad_b = (self.window_size - H % self.window_size) % self.window_size
        x = F.pad(x, (0, 0, 0, pad_r, 0, pad_b))
        if self.shift_size > 0:
            x = torch.roll(x, shifts=(-self.shift_size, -self.shift_size), dims=(1, 2))
        windows = window_partition(x, self.window_size)
        return self.proj(windows).sum(dim=(1, 2))


def make_model():
    return SwinBlock()


def example_inputs():
    return (torch.randn(1, 8, 8, 4),)


def other_inputs():
    return [(torch.randn(1, 7, 13, 4),), (torch.randn(1, 12, 8, 4),)]


def probe_inputs():
    return other_inputs()
