"""ONX701: constant negative values in combined tensor indices."""
import torch
from torch import nn


class Gather(nn.Module):
    def forward(self, data: torch.Tensor):
        return data[torch.tensor([[1, 2], [2, -3]]), torch.tensor([-2, 3])]


def make_model():
    return Gather()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(4, 5),)


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(4, 5) * 3,), (torch.randn(6, 7),)]


DYNAMIC = {0: {0: "rows", 1: "cols"}}
