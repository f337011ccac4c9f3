"""A float16 segment-sum pooling layer (`index_add_` of projected rows into a fixed number of segment
slots, so repeated indices accumulate): the exported ScatterND with reduction='add' cannot run on
onnxruntime's CPU execution provider, which throws NOT_IMPLEMENTED for MLFloat16 (and BFloat16) under
every ScatterND reduction (add, mul, min, max).

Source: https://github.com/microsoft/onnxruntime/pull/32065
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"x": {0: "num_rows"}, "segment_ids": {0: "num_rows"}}
BLIND = "operators-16"


class SegmentSumPool(nn.Module):
    def __init__(self, in_dim=16, dim=32, num_segments=8):
        super().__init__()
        self.proj = nn.Linear(in_dim, dim)
        self.num_segments = num_segments

    def forward(self, x, segment_ids):
        h = torch.relu(self.proj(x))
        pooled = torch.zeros(self.num_segments, h.size(-1), dtype=h.dtype, device=h.device)
        pooled.index_add_(0, segment_ids, h)
        return pooled


def make_model():
    return SegmentSumPool().eval().half()


def _rows(n):
    return (torch.randn(n, 16, dtype=torch.float16), torch.randint(0, 8, (n,)))


def example_inputs():
    return _rows(20)


def other_inputs():
    return [_rows(33), _rows(7)]


def probe_inputs():
    return other_inputs()
