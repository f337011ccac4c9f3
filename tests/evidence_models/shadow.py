"""Evidence of one scope is not another's: a comprehension variable or a lambda parameter
that shadows a name of forward, and two lambdas starting on one line (one code object name
and first line: their records merge)."""

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence


class Shadow(nn.Module):
    def forward(self, x, p, ps):
        t = x
        sizes = [t.data.shape[0] for t in ps]
        rows = [p.data for p in p.data]
        f, g = (lambda u: u.data), (lambda u: u.data)
        return t.data + sizes[0] + rows[0] + f(x) + g(p).sum()


def example_inputs():
    packed = pack_padded_sequence(torch.randn(3, 2, 4), [3, 2])
    return (torch.randn(5, 4), packed, [packed])
