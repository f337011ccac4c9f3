"""TCN block with `torch.nn.utils.weight_norm(conv)`: "Results of the torch model and onnx model differ if the
model uses torch.nn.utils.weight_norm()".

Source: https://github.com/microsoft/onnxruntime/issues/3143
"""
import torch
from torch import nn
from torch.nn.utils import weight_norm

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "time"}}


class BadBlock(nn.Module):
    def __init__(self, n_inputs=8, n_outputs=10, kernel_size=6):
        super().__init__()
        self.conv = weight_norm(nn.Conv1d(n_inputs, n_outputs, kernel_size))
        self.net = nn.Sequential(self.conv, nn.ReLU())

    def forward(self, x):
        return self.net(x)


def make_model():
    return BadBlock()


def example_inputs():
    return (torch.randn(1, 8, 32),)


def other_inputs():
    return [(torch.randn(2, 8, 20),), (torch.randn(1, 8, 45),)]


def probe_inputs():
    return other_inputs()
