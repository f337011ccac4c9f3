"""ONX601: `if` on a tensor value, both branches return."""
import torch
from torch import nn


class Sign(nn.Module):
    def forward(self, x: torch.Tensor):
        if x.sum() > 0:
            return x * 2
        else:
            return x - 1


def make_model():
    return Sign()


def example_inputs():
    torch.manual_seed(0)
    return (torch.tensor([[1.0, 2.0, -0.5], [0.5, 1.5, 2.0]]),)


def probe_inputs():
    torch.manual_seed(1)
    return [(-torch.tensor([[1.0, 2.0, -0.5], [0.5, 1.5, 2.0]]),), (-torch.ones(4, 3),)]


DYNAMIC = {0: {0: "batch"}}
