"""A model whose forward calls `torch.trunc` (here: truncating activations to a fixed-point grid between two
layers); the TorchScript exporter has no symbolic for `aten::trunc` ("[ONNX] Support `aten::trunc`:
`aten::trunc` is created by `torch.trunc`"), so export stops with UnsupportedOperatorError.

Source: https://github.com/pytorch/pytorch/issues/86084
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-17"


class FixedPointAct(nn.Module):
    def __init__(self, frac_bits=4):
        super().__init__()
        self.scale = 2.0 ** frac_bits

    def forward(self, x):
        return torch.trunc(x * self.scale) / self.scale


class Net(nn.Module):
    def __init__(self, in_features=16, hidden=32, out_features=4):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden)
        self.act = FixedPointAct()
        self.fc2 = nn.Linear(hidden, out_features)

    def forward(self, x):
        x = self.fc1(x)
        x = self.act(x)
        return self.fc2(x)


def make_model():
    return Net().eval()


def example_inputs():
    return (torch.randn(2, 16),)


def other_inputs():
    return [(torch.randn(5, 16),), (torch.randn(1, 16),)]


def probe_inputs():
    return other_inputs()
