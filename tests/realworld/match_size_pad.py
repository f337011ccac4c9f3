"""Detection model trimming an upsampled map to the input's size: `match_size_2d(t, sized)` computes
`dh = sized.size(2) - t.size(2)` and pads with `F.pad(t, (dw // 2, dw - dw // 2, ...))` (sizes cross a call).

Source: https://github.com/pytorch/pytorch/issues/27838
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "cross-call"
FAMILY = "shape_math"
DYNAMIC = {"input": {2: "h", 3: "w"}}


def match_size_2d(t, sized):
    assert t.dim() == 4 and sized.dim() == 4
    dh = sized.size(2) - t.size(2)
    dw = sized.size(3) - t.size(3)
    pad = (dw // 2, dw - dw // 2, dh // 2, dh - dh // 2)
    return F.pad(t, pad)


class MyModel(nn.Module):
    def forward(self, input):
        x = F.avg_pool2d(input, 2, ceil_mode=True)
        upscaled = F.interpolate(x, scale_factor=2)
        upscaled = match_size_2d(upscaled, input)
        return torch.cat([input, upscaled], dim=1)


def make_model():
    return MyModel()


def example_inputs():
    return (torch.randn(1, 2, 11, 11),)


def other_inputs():
    return [(torch.randn(1, 2, 12, 9),), (torch.randn(1, 2, 15, 16),)]


def probe_inputs():
    return other_inputs()
