"""Hyperbolic (Lorentz-model) metric head: embeddings are lifted onto the hyperboloid and compared to
learned class prototypes with the geodesic distance `torch.acosh(-<x, p>_L)`. The coremltools report:
"torch.acosh and torch.asinh have registrations in torch that do not lower" - a model whose forward
calls `torch.acosh` fails to convert. acosh is likewise the op the ONNX export trips on.

Source: https://github.com/apple/coremltools/issues/2569
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-66"


class LorentzPrototypeHead(nn.Module):
    def __init__(self, in_features=64, dim=16, num_classes=10):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(in_features, 64), nn.ReLU(), nn.Linear(64, dim))
        self.prototypes = nn.Parameter(torch.randn(num_classes, dim) * 0.5)

    @staticmethod
    def lift(v):
        # point on the hyperboloid x0 = sqrt(1 + |v|^2)
        x0 = torch.sqrt(1.0 + (v * v).sum(dim=-1, keepdim=True))
        return torch.cat([x0, v], dim=-1)

    def forward(self, x):
        z = self.lift(self.encoder(x))                  # (B, dim+1)
        p = self.lift(self.prototypes)                  # (C, dim+1)
        inner = -z[:, :1] * p[:, :1].t() + z[:, 1:] @ p[:, 1:].t()
        dist = torch.acosh(torch.clamp(-inner, min=1.0 + 1e-5))
        return -dist


def make_model():
    return LorentzPrototypeHead().eval()


def example_inputs():
    return (torch.randn(4, 64),)


def other_inputs():
    return [(torch.randn(7, 64),), (torch.randn(1, 64),)]


def probe_inputs():
    return other_inputs()
