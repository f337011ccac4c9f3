"""Data-dependent early exit on a selection's size: `if y.numel() < 200:` after a boolean selection
("Real tensor prop for export fails for torch.where() call"); detection heads do the same with `if boxes.numel() == 0`.

Source: https://github.com/pytorch/pytorch/issues/135618
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "n"}}


class Select(nn.Module):
    def forward(self, x):
        y = x[x > 0.5]
        if y.numel() == 0:
            return x.new_zeros(())
        return y.sum()


def make_model():
    return Select()


def example_inputs():
    return (torch.rand(10, 3),)


def other_inputs():
    return [(torch.rand(7, 3) * 0.4,), (torch.rand(12, 3),)]


def probe_inputs():
    return other_inputs()
