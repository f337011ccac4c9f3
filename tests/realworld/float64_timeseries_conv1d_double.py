"""Quantitative model trained and loaded in double precision (float64 weights and inputs) for
precision reasons: a 1-D convolutional feature extractor over a time series. After export, the
onnxruntime session cannot run the double-typed graph (`NOT_IMPLEMENTED: Could not find an
implementation for Conv(11)`): onnxruntime supports double only for some ops.

Source: https://github.com/microsoft/onnxruntime/issues/5782
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "time"}}
BLIND = "operators-15"


class SignalRegressor(nn.Module):
    def __init__(self, channels=4, hidden=16):
        super().__init__()
        self.conv1 = nn.Conv1d(channels, hidden, kernel_size=5, padding=2)
        self.conv2 = nn.Conv1d(hidden, hidden, kernel_size=3, padding=1)
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        h = torch.relu(self.conv1(x))
        h = torch.relu(self.conv2(h))
        return self.head(h.mean(dim=-1))


def make_model():
    return SignalRegressor().double()


def example_inputs():
    return (torch.randn(2, 4, 64, dtype=torch.float64),)


def other_inputs():
    return [(torch.randn(3, 4, 100, dtype=torch.float64),), (torch.randn(1, 4, 37, dtype=torch.float64),)]


def probe_inputs():
    return other_inputs()
