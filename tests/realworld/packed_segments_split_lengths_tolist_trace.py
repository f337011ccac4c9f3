"""Ranking model that pools a packed batch of per-sample feature rows: the rows are cut per sample
with `torch.split(x, split_size_or_sections=lengths.tolist())`; tracing cannot record the tensor ->
list conversion, so the traced/exported model keeps the example's split sizes and fails or is wrong
on other inputs (the report asks for torch.split to take a tensor of sizes instead).

Source: https://github.com/pytorch/pytorch/issues/47479
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"features": {0: "rows"}, "lengths": {0: "batch"}}
BLIND = "domains-28"


class PackedSegmentPooling(nn.Module):
    def __init__(self, dim=16, out_dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, out_dim)

    def forward(self, features, lengths):
        h = torch.relu(self.proj(features))
        segments = torch.split(h, split_size_or_sections=lengths.tolist(), dim=0)
        pooled = torch.stack([seg.mean(dim=0) for seg in segments], dim=0)
        return pooled


def make_model():
    return PackedSegmentPooling()


def _inputs(lengths):
    lengths = torch.tensor(lengths, dtype=torch.int64)
    return (torch.randn(int(lengths.sum()), 16), lengths)


def example_inputs():
    return _inputs([3, 5, 2])


def other_inputs():
    return [_inputs([4, 1, 6, 2]), _inputs([7, 3])]


def probe_inputs():
    return other_inputs()
