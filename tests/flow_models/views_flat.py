"""ONX303: strided writes into the flat view of a tensor (`y.view(-1)[::2] = 0`)."""
import torch
from torch import nn


class Checkerboard(nn.Module):
    def forward(self, x: torch.Tensor):
        a = x * 1
        a.view(-1)[::2] = 0
        a.view(-1)[1::3] = -1.5
        b = x + 1
        b.view(-1)[5:] = 0.25
        c = x * 2
        c.view(-1)[:] = 4
        return a, b, c


def make_model():
    return Checkerboard()


def example_inputs():
    torch.manual_seed(0)
    # 5 columns: the flat stride 2 is not a column stride (no subscript of `a` is the same)
    return (torch.randn(3, 5),)


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(3, 5) * 3,), (torch.randn(4, 6),)]


DYNAMIC = {0: {0: "rows", 1: "cols"}}
