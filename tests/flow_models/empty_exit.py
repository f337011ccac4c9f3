"""ONX601: an early exit on an empty selection (a size read from tensor values): `if y.numel() ==
0: return x.new_zeros(())` before `return y.sum()`. Dynamo fails on the branch; legacy records
the sum path, which is right here because the sum of nothing is that zero. Fixed (unsafely: the
zero must have the sum's dtype and device) by dropping the check."""
import torch
from torch import nn


class SelectedSum(nn.Module):
    def forward(self, x: torch.Tensor):
        y = x[x > 0.5]
        if y.numel() == 0:
            return x.new_zeros(())
        return y.sum()


def make_model():
    return SelectedSum()


def example_inputs():
    return (torch.tensor([[0.75, 0.25, 1.0], [0.5, 0.875, 0.125]]),)


def probe_inputs():
    return [(torch.tensor([[0.25, 0.125, 0.5], [0.0, 0.375, 0.25]]),), (torch.full((4, 3), 0.625),)]


DYNAMIC = {0: {0: "rows"}}
