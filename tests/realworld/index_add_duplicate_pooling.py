"""Segment-sum pooling written with `Tensor.index_add_(0, index, source)` where `index` repeats
(several rows land in the same segment); `torch.onnx.export` produces a wrong ONNX model
(ScatterElements without reduction keeps only one of the duplicates).

Source: https://github.com/pytorch/pytorch/issues/111159
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "rows"}, "index": {0: "rows"}, "out": {0: "segments"}}
BLIND = "operators-1"


class SegmentSum(nn.Module):
    def __init__(self, channels=8):
        super().__init__()
        self.proj = nn.Linear(channels, channels)

    def forward(self, x, index, out):
        h = self.proj(x)
        out = out.clone()
        out.index_add_(0, index, h)
        return out


def make_model():
    return SegmentSum()


def _inputs(n, s):
    index = torch.randint(0, s, (n,))
    return (torch.randn(n, 8), index, torch.zeros(s, 8))


def example_inputs():
    return _inputs(10, 4)


def other_inputs():
    return [_inputs(23, 6), _inputs(7, 2)]


def probe_inputs():
    return other_inputs()
