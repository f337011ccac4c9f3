"""Integer requantisation of an int32 accumulator with an arithmetic right shift (`acc >> 8`), as in
fixed-point inference kernels. The report: the TorchScript exporter maps `>>` on a signed tensor to
ONNX `Div` by 2**8 instead of a shift, and integer Div truncates toward zero, so negative values come
out wrong (-3527 >> 8 is -14 in PyTorch, -13 after export).

Source: https://github.com/pytorch/pytorch/issues/139455
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"acc": {0: "batch", 1: "features"}}
BLIND = "operators-35"


class RequantShift(nn.Module):
    def __init__(self, shift=8):
        super().__init__()
        self.shift = shift

    def forward(self, acc):
        out = acc >> self.shift
        return torch.clamp(out, -128, 127).to(torch.int8)


def make_model():
    return RequantShift()


def example_inputs():
    return (torch.randint(-6000, 6000, (2, 16), dtype=torch.int32),)


def other_inputs():
    return [
        (torch.randint(-6000, 6000, (3, 24), dtype=torch.int32),),
        (torch.randint(-6000, 6000, (1, 5), dtype=torch.int32),),
    ]


def probe_inputs():
    return other_inputs()
