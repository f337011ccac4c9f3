"""Integer ages decayed with `torch.exp(-ages)` and scaled by `torch.sqrt(counts)` (int32 tensors): ATen
computes both in float32 on the integers cast, the legacy exporter writes an Exp and a Sqrt on the
int32 values, which ONNX has no such type of (onnxruntime: INVALID_GRAPH, Type Error)."""
import torch
from torch import nn

DYNAMIC = {"ages": {0: "batch"}, "counts": {0: "batch"}}


class Decay(nn.Module):
    def forward(self, ages, counts):
        return torch.exp(-ages) * counts.sqrt()


def make_model():
    return Decay().eval()


def _pair(n):
    return (torch.randint(0, 6, (n, 5), dtype=torch.int32), torch.randint(0, 50, (n, 5), dtype=torch.int32))


def example_inputs():
    return _pair(4)


def probe_inputs():
    return [_pair(9), _pair(2)]
