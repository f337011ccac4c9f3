"""Run-time evidence in every form of code a function runs (issue 26): its first statement, a
line inside a multi-line statement, list/dict/set comprehensions, a generator expression, a
lambda and a nested function. Every receiver of `.data` is an unannotated parameter or a name
bound from one, so statically it might be a PackedSequence (`.detach()` an unsafe fix); the
recorded run saw only tensors."""

import torch
from torch import nn


class Forms(nn.Module):
    def forward(self, x, xs):
        first = x.data
        listed = [t.data for t in xs]
        keyed = {i: t.data for i, t in enumerate(xs)}
        summed = {t.data.sum() for t in xs}
        total = sum(t.data for t in xs)
        double = lambda u: u.data * 2

        def shift(v):
            return v.data + 1

        stacked = torch.cat(
            [first,
             x.data],
            dim=0,
        )
        rows = [
            w.data
            for w in xs
        ]
        return (
            listed[0] + keyed[0] + double(x) + shift(x) + total + stacked.sum()
            + rows[1] + len(summed)
        )


def example_inputs():
    return (torch.randn(2, 4), [torch.randn(2, 4), torch.randn(2, 4)])
