"""transformers' mixture-of-experts matmul, called as transformers calls it under export: the
custom op `transformers::grouped_mm_fallback`, which no exporter translates."""

import torch
import transformers.integrations.moe  # noqa: F401 - registers the op
from torch import nn


class Experts(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.router = nn.Linear(6, 3)
        self.up = nn.Parameter(torch.randn(3, 6, 4) * 0.3)

    def forward(self, tokens):
        expert = self.router(tokens).argmax(-1)
        order = expert.argsort()
        ends = nn.functional.one_hot(expert, 3).sum(0).cumsum(0)
        grouped = torch.ops.transformers.grouped_mm_fallback(tokens[order], self.up, ends)
        return torch.empty_like(grouped).index_copy(0, order, grouped)


def example_inputs():
    return (torch.randn(7, 6),)
