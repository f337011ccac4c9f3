"""torch.onnx.export fails with "Could not guard on data-dependent expression u1 < 0" inside `constant_pad_nd`:
the pad amount comes from a tensor value (`target - x.shape[-1]` with `target = lengths.max().item()`).

Source: https://github.com/pytorch/pytorch/issues/143222
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "scalars"
DYNAMIC = {"x": {0: "batch", 1: "time"}, "lengths": {0: "batch"}}


class PadTo(nn.Module):
    def forward(self, x, lengths):
        target = lengths.max().item()
        return F.pad(x, (0, target - x.shape[-1]))


def make_model():
    return PadTo()


def example_inputs():
    return (torch.randn(2, 3), torch.tensor([5, 4]))


def other_inputs():
    return [(torch.randn(3, 4), torch.tensor([6, 2, 7])), (torch.randn(2, 3), torch.tensor([3, 3]))]


def probe_inputs():
    return other_inputs()
