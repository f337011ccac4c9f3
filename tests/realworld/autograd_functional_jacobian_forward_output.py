"""A wrapper model returns both a sub-model's output and its input Jacobian computed in forward with
`torch.autograd.functional.jacobian(self.model, X)` (flattened per sample); the report cannot export the
wrapper to ONNX.

Source: https://github.com/pytorch/pytorch/issues/128325
"""
import torch

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"X": {0: "batch"}}
BLIND = "operators-27"


class Model1(torch.nn.Module):
    def __init__(self):
        super(Model1, self).__init__()

    def forward(self, X):
        return X[:, 0] ** 2 + X[:, 1]


class F(torch.nn.Module):
    def __init__(self, model: torch.nn.Module):
        super(F, self).__init__()
        self.model = model

    def forward(self, X):
        out = self.model(X)
        grad = torch.autograd.functional.jacobian(self.model, X)
        return out, torch.flatten(grad, 1)


def make_model():
    return F(Model1())


def example_inputs():
    return (torch.arange(6).reshape(3, 2).to(torch.float32),)


def other_inputs():
    return [(torch.randn(5, 2),), (torch.randn(2, 2),)]


def probe_inputs():
    return other_inputs()
