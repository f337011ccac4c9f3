"""A float64 MLP with exact GELU (erf form): the exported ONNX model runs with
CUDAExecutionProvider but onnxruntime's CPUExecutionProvider fails with "NOT_IMPLEMENTED : Could not
find an implementation for Erf(13) node with name '/Erf'" (no double Erf kernel on CPU). The report
shares only the graph (a double-precision network with an Erf node); the value head around the
GELU is my reconstruction.

Source: https://github.com/microsoft/onnxruntime/issues/26736
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"obs": {0: "batch"}}
BLIND = "operators-4"


class ValueNet(nn.Module):
    def __init__(self, obs_dim=61, hidden=64):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(obs_dim, hidden),
            nn.GELU(),
            nn.Linear(hidden, hidden),
            nn.GELU(),
            nn.Linear(hidden, 1),
        )

    def forward(self, obs):
        return self.net(obs)


def make_model():
    return ValueNet().double().eval()


def example_inputs():
    return (torch.randn(4, 61, dtype=torch.float64),)


def other_inputs():
    return [(torch.randn(1, 61, dtype=torch.float64),), (torch.randn(9, 61, dtype=torch.float64),)]


def probe_inputs():
    return other_inputs()
