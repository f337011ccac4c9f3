"""Frames the last (feature) axis of a (batch, time, freq) input into overlapping windows with
`x.unfold(-1, 4, 2)`. The report: exporting it with the TorchScript exporter works with static shapes,
but as soon as `dynamic_axes` marks the dims as dynamic it fails ("Couldn't export operator aten::unfold");
on newer opsets the maintainers pointed to a Loop-based symbolic.

Source: https://github.com/pytorch/pytorch/issues/57086
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "time", 2: "freq"}}
BLIND = "operators-15"


class Unfold1(nn.Module):
    def forward(self, x):
        return x.unfold(-1, 4, 2)


def make_model():
    return Unfold1()


def example_inputs():
    return (torch.arange(72).reshape(1, 3, 24).float(),)


def other_inputs():
    return [(torch.randn(2, 5, 30),), (torch.randn(3, 2, 17),)]


def probe_inputs():
    return other_inputs()
