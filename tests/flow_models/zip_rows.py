"""ONX603 (report only): `rows, cols = zip(*ind)` over an (N, 2) index tensor, udop's
patch-mask pattern. The star iterates over the rows of `ind` at trace time."""
import torch
from torch import nn


class GatherPairs(nn.Module):
    def forward(self, x: torch.Tensor, ind: torch.Tensor):
        rows, cols = zip(*ind)
        return x[torch.stack(rows), torch.stack(cols)]


def make_model():
    return GatherPairs()


def example_inputs():
    return (torch.arange(16.0).reshape(4, 4), torch.tensor([[0, 1], [2, 3], [3, 0]]))


def probe_inputs():
    return [
        (torch.arange(16.0).reshape(4, 4), torch.tensor([[1, 1], [2, 0], [0, 3]])),
        (torch.arange(16.0).reshape(4, 4), torch.tensor([[1, 1], [2, 2], [0, 3], [3, 3], [1, 0]])),
    ]


DYNAMIC = {1: {0: "pairs"}}
