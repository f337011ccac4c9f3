"""anomalib PatchCore nearest-neighbour search: `torch.cdist(embedding, memory_bank)` then the minimum;
"Exporting the operator cdist to ONNX opset version 11 is not supported".

Source: https://github.com/open-edge-platform/anomalib/issues/440
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"embedding": {0: "patches"}}


class PatchCore(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("memory_bank", torch.randn(16, 8))

    def forward(self, embedding):
        distances = torch.cdist(embedding, self.memory_bank, p=2.0)
        return distances.min(dim=1).values


def make_model():
    return PatchCore()


def example_inputs():
    return (torch.randn(6, 8),)


def other_inputs():
    return [(torch.randn(11, 8),), (torch.randn(2, 8),)]


def probe_inputs():
    return other_inputs()
