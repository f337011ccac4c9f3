"""Exporting the gradient of a function: `torch.autograd.grad(y, x, create_graph=True)` inside forward;
"Exporting the operator 'aten::select_backward' ... is not supported".

Source: https://github.com/pytorch/pytorch/issues/108926
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "n"}}


def f(x):
    return torch.sum(x[:1] ** 2)


class EvaluateGradient(nn.Module):
    def forward(self, x):
        x = x.detach().requires_grad_()
        with torch.enable_grad():
            y = f(x)
            grads = torch.autograd.grad(y, x, create_graph=True)
        return grads[0]


def make_model():
    return EvaluateGradient()


def example_inputs():
    return (torch.randn(2, 2),)


def other_inputs():
    return [(torch.randn(4, 2),), (torch.randn(3, 2),)]


def probe_inputs():
    return other_inputs()
