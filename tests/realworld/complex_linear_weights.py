"""Complex-valued network with a `cLinear` layer whose weight and bias are
`nn.Parameter(torch.zeros(..., dtype=torch.cfloat))` and whose input is lifted with
`torch.complex(inp, torch.zeros_like(inp))`; complex weights are not supported by the ONNX export.

Source: https://github.com/onnx/onnx/issues/6388
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"inp": {0: "batch"}}
BLIND = "operators-1"


class cLinear(nn.Module):
    def __init__(self, in_features, out_features, bias=True):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(out_features, in_features, dtype=torch.cfloat))
        self.bias = nn.Parameter(torch.zeros(1, out_features, dtype=torch.cfloat), requires_grad=bias)

        nn.init.xavier_uniform_(self.weight)
        if bias:
            nn.init.xavier_uniform_(self.bias)

    def forward(self, inp):
        if not inp.dtype == torch.cfloat:
            inp = torch.complex(inp, torch.zeros_like(inp))
        return torch.matmul(inp, self.weight.T) + self.bias


class ComplexMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = cLinear(16, 32)
        self.fc2 = cLinear(32, 4)

    def forward(self, inp):
        h = self.fc1(inp)
        h = self.fc2(h)
        return h.abs()


def make_model():
    return ComplexMLP()


def example_inputs():
    return (torch.randn(2, 16),)


def other_inputs():
    return [(torch.randn(5, 16),), (torch.randn(1, 16),)]


def probe_inputs():
    return other_inputs()
