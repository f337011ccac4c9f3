"""Right shift on a signed integer tensor (`x >> n`, as used to rescale int32 accumulators in low-bit
integer layers). The legacy TorchScript exporter lowers a signed `>>` to ONNX `Div` by `2**n`, which
truncates toward zero, so negative values come back one too large (`-7 >> 1` gives -3 instead of -4).

Source: https://github.com/pytorch/pytorch/issues/191014
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "length"}}
BLIND = "operators-16"


class RightShift(nn.Module):
    def __init__(self, shift=1):
        super().__init__()
        self.shift = shift

    def forward(self, x):
        return x >> self.shift


def make_model():
    return RightShift(1)


def example_inputs():
    return (torch.randint(-100, 100, (2, 16), dtype=torch.int32),)


def other_inputs():
    return [
        (torch.randint(-1000, 1000, (3, 24), dtype=torch.int32),),
        (torch.tensor([[-7, -5, -3, -1, 1, 3, 5, 7, -8]], dtype=torch.int32),),
    ]


def probe_inputs():
    return other_inputs()
