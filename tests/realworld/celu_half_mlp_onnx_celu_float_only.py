"""An MLP head with nn.CELU activations run in half precision. ONNX's Celu operator is defined for float32 only
("Celu only supports float in ONNX", as the onnxscript PR says when it adds a Cast-to-float variant for the other
float types), so a graph that applies Celu directly to a float16 tensor is rejected by onnxruntime.

Source: https://github.com/microsoft/onnxscript/pull/1158
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-60"


class CeluMLP(nn.Module):
    def __init__(self, in_features=32, hidden=64, out_features=8, alpha=1.0):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden)
        self.act1 = nn.CELU(alpha=alpha)
        self.fc2 = nn.Linear(hidden, hidden)
        self.act2 = nn.CELU(alpha=alpha)
        self.out = nn.Linear(hidden, out_features)

    def forward(self, x):
        x = self.act1(self.fc1(x))
        x = self.act2(self.fc2(x))
        return self.out(x)


def make_model():
    return CeluMLP().half().eval()


def example_inputs():
    return (torch.randn(4, 32).half(),)


def other_inputs():
    return [(torch.randn(7, 32).half(),), (torch.randn(1, 32).half(),)]


def probe_inputs():
    return other_inputs()
