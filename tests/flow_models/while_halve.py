"""ONX602: a `while` loop on a tensor value, halving until the values fit (fixed for torch.export: while_loop)."""
import torch
from torch import nn


class FitToUnitRange(nn.Module):
    def forward(self, x: torch.Tensor):
        while x.abs().max() > 1:
            x = x / 2
        return x


def make_model():
    return FitToUnitRange()


def example_inputs():
    # max |x| = 3: two halvings at export time
    return (torch.tensor([[0.5, -3.0, 1.0], [2.0, 0.25, -1.5]]),)


def probe_inputs():
    # max |x| = 12 (four halvings) and 0.75 (none), another row count
    return [(torch.tensor([[0.5, -12.0, 1.0], [2.0, 0.25, -1.5]]),), (torch.full((4, 3), 0.75),)]


DYNAMIC = {0: {0: "rows"}}
