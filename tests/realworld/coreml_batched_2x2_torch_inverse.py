"""A model calls torch.inverse() on a batch of per-channel 2x2 matrices (shape [B, C, 2, 2]); converting it to
Core ML fails with "PyTorch convert function for op 'inverse' not implemented", and the reporter falls back to a
hand-written 2x2 inverter.

Source: https://github.com/apple/coremltools/issues/958
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-22"


class MatrixInverseHead(nn.Module):
    def __init__(self, in_features=16, channels=3):
        super().__init__()
        self.channels = channels
        self.fc = nn.Linear(in_features, channels * 4)
        self.register_buffer("eye", 2.0 * torch.eye(2))  # keeps the matrices well conditioned

    def forward(self, x):
        t = self.fc(x).view(-1, self.channels, 2, 2)
        t = t + self.eye
        return torch.inverse(t)


def make_model():
    return MatrixInverseHead().eval()


def example_inputs():
    return (torch.randn(2, 16),)


def other_inputs():
    return [(torch.randn(5, 16),), (torch.randn(1, 16),)]


def probe_inputs():
    return other_inputs()
