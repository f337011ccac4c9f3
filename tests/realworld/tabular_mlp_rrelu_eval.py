"""A small network that uses `nn.RReLU()` activations is exported to ONNX and run in eval mode; the
report says onnxruntime gives different outputs for the same input on every run (the RReLU was
exported with its random training-mode slope), while LeakyReLU does not have the problem.

Source: https://github.com/microsoft/onnxruntime/issues/8970
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-14"


class Net(nn.Module):
    def __init__(self, in_features=20, hidden=64, num_classes=3):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(in_features, hidden),
            nn.RReLU(),
            nn.Linear(hidden, hidden),
            nn.RReLU(),
            nn.Linear(hidden, num_classes),
        )

    def forward(self, x):
        return self.layers(x)


def make_model():
    return Net().eval()


def example_inputs():
    return (torch.randn(4, 20),)


def other_inputs():
    return [(torch.randn(7, 20),), (torch.randn(1, 20),)]


def probe_inputs():
    return other_inputs()
