"""ONX304: `copy.deepcopy` of a tensor in forward."""
import copy

import torch
from torch import nn


class Copy(nn.Module):
    def forward(self, x: torch.Tensor):
        y = copy.deepcopy(x)
        y[:, 0] = 0
        return y * 2 + x


def make_model():
    return Copy()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(3, 4),)


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(3, 4) * 3,), (torch.randn(6, 4),)]


DYNAMIC = {0: {0: "rows"}}
