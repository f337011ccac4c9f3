"""ONX603: an accumulation loop over the rows of a dynamic dimension."""
import torch
from torch import nn


class RowSum(nn.Module):
    def forward(self, x: torch.Tensor):
        acc = torch.zeros_like(x[0])
        for i in range(x.shape[0]):
            acc = acc + (x[i] * 2 - 1)
        return acc


def make_model():
    return RowSum()


def example_inputs():
    torch.manual_seed(0)
    # integer-valued floats: every order of summation gives the same bits
    return (torch.arange(12.0).reshape(3, 4),)


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.arange(12.0).reshape(3, 4) - 5,), (torch.arange(20.0).reshape(5, 4),)]


DYNAMIC = {0: {0: "rows"}}
