"""NeMo's relative positions: the table's centre kept as an int32 0-d tensor, the slice bounds
computed from it. Statically the bounds' dtype is unknown; the recorded run saw int32, which the
legacy exporter writes into a Slice beside int64 bounds (onnxruntime refuses the model)."""

import torch
from torch import nn


class NarrowBound(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("pe", torch.randn(1, 63, 4))
        self.center_pos = torch.tensor(32, dtype=torch.int32)

    def forward(self, x):
        start, end = self.center_pos - x.size(1), self.center_pos + x.size(1) - 1
        return x[:, :1] + self.pe[:, start:end].sum(1, keepdim=True)


def example_inputs():
    return (torch.randn(2, 9, 4),)


def probe_inputs():
    return [(torch.randn(3, 14, 4),)]


DYNAMIC = {"x": {0: "batch", 1: "time"}}
