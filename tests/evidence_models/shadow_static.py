"""Names bound by a comprehension or a lambda are their own (no run needed)."""

import torch
from torch import nn


class ShadowStatic(nn.Module):
    def forward(self, ps):
        t = torch.zeros(3)
        a = [t.data for t in ps]
        f = lambda t: t.data
        return t.data, a, f(ps[0])
