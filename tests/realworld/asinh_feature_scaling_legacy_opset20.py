"""Model that compresses its heavy-tailed input features with `torch.asinh` before a small MLP. The report:
ONNX has had Asinh since opset 9, yet `torch.onnx.export(..., opset_version=20)` (TorchScript exporter)
raises "Exporting the operator 'aten::asinh' ... is not supported"; the maintainers point to dynamo=True.
(The report's code is a screenshot; the asinh-on-input usage here is the pattern it names.)

Source: https://github.com/onnx/onnx/issues/6813
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-11"


class AsinhScaledMLP(nn.Module):
    def __init__(self, in_features=12, hidden=32, out_features=3):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(in_features, hidden),
            nn.ReLU(),
            nn.Linear(hidden, out_features),
        )

    def forward(self, x):
        x = torch.asinh(x)
        return self.net(x)


def make_model():
    return AsinhScaledMLP()


def example_inputs():
    return (torch.randn(4, 12) * 100.0,)


def other_inputs():
    return [(torch.randn(7, 12) * 100.0,), (torch.randn(1, 12) * 100.0,)]


def probe_inputs():
    return other_inputs()
