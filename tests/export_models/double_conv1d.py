"""A float64 time-series Conv1d: onnxruntime has no double Conv kernel, and the failing node's name
(`node_conv1d`) also names onnxfix's conv1d decomposition (padding='same' with dilation), which
calls the op past float32_compute's wrapper when both are tried together: the fix loop then tries
each named repair alone and keeps float32_compute."""
import torch
from torch import nn


class Forecaster(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(3, 8, 5, padding=2)
        self.head = nn.Linear(8, 1)

    def forward(self, x):
        return self.head(torch.relu(self.conv(x)).mean(-1))


def make_model():
    torch.manual_seed(0)
    return Forecaster().double().eval()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(2, 3, 32, dtype=torch.float64),)


def probe_inputs():
    return [(torch.randn(4, 3, 50, dtype=torch.float64),), (torch.randn(1, 3, 9, dtype=torch.float64),)]


DYNAMIC = {0: {0: "batch", 2: "time"}}
