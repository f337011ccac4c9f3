"""ALS recommender served from ONNX: `forward(self, ind, size: int = 5)` is meant to return the top-`size` items
as a `Dict[str, float]` (item id -> score); the export fails because a `Dict[str, X]` (or even a `str`) cannot be
the output of an exported model. (The report trims the body to `return "heyo"`; the dict-of-top-k body is the
use it describes.)

Source: https://github.com/pytorch/pytorch/issues/87785
"""
from typing import Dict

import torch
import torch.nn as nn

CLASS = "outputs"
FAMILY = "scalars"
DYNAMIC = {}
BLIND = "domains-2"


class ALSModel(nn.Module):
    def __init__(self, n_items: int, n_factors: int, n_users: int = 50):
        super(ALSModel, self).__init__()
        self.user_factors = nn.Parameter(torch.randn(n_users, n_factors))
        self.item_factors = nn.Parameter(torch.randn(n_items, n_factors))

    def forward(self, ind: torch.Tensor, size: int = 5) -> Dict[str, float]:
        scores = self.item_factors @ self.user_factors[ind].squeeze(0)
        top = torch.topk(scores, size)
        return {str(i): s for i, s in zip(top.indices.tolist(), top.values.tolist())}


def make_model():
    return ALSModel(100, 16)


def example_inputs():
    return (torch.ones(1).long(),)


def other_inputs():
    return [(torch.tensor([7]),), (torch.tensor([42]),)]


def probe_inputs():
    return other_inputs()
