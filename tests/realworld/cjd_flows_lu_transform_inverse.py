"""Normalizing flow (USFlows cjd-flows) with an LU linear layer: the inverse pass computes
`torch.inverse(self.L)` and `torch.inverse(self.U)` of the learned triangular factors in forward;
calling `to_onnx` on a flow with LU layers fails because "the function linalg_inv is not implemented
in onnx". The pyro TransformModule base is replaced by nn.Module; the exported direction is the inverse.

Source: https://github.com/USFlows/cjd-flows/issues/22
"""
import math

import torch
from torch import nn
from torch import linalg as LA
from torch.nn import init

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"y": {0: "batch"}}
BLIND = "operators-5"


class LUTransform(nn.Module):
    """Linear bijection y = (LU)x + bias with unit-diagonal L and upper-triangular U."""

    def __init__(self, dim: int, prior_scale: float = 1.0):
        super().__init__()
        self.L_raw = torch.nn.Parameter(torch.empty(dim, dim))
        self.U_raw = torch.nn.Parameter(torch.empty(dim, dim))
        self.bias_vector = torch.nn.Parameter(torch.empty(dim))
        self.dim = dim
        self.prior_scale = prior_scale
        self.init_params()

    def init_params(self):
        init.kaiming_uniform_(self.L_raw, nonlinearity="relu")
        with torch.no_grad():
            self.L_raw.copy_(self.L_raw.tril(diagonal=-1).fill_diagonal_(1))
        init.kaiming_uniform_(self.U_raw, nonlinearity="relu")
        with torch.no_grad():
            self.U_raw.fill_diagonal_(0)
            d = self.dim
            sign = -torch.ones(d) + 2 * torch.bernoulli(.5 * torch.ones(d))
            scale = self.prior_scale * torch.ones(d) * 1/self.dim
            self.U_raw += sign * torch.normal(torch.zeros(self.dim), scale).exp().diag()
            self.U_raw.copy_(self.U_raw.triu())
        bound = 1 / math.sqrt(self.dim)
        init.uniform_(self.bias_vector, -bound, bound)

    def forward(self, x: torch.Tensor, context=None) -> torch.Tensor:
        return torch.functional.F.linear(x, self.matrix(), self.bias_vector)

    def backward(self, y: torch.Tensor, context=None) -> torch.Tensor:
        """Computes the inverse transform $(LU)^{-1}(y - \\mathrm{bias})$"""
        L_inv = torch.inverse(self.L)
        U_inv = torch.inverse(self.U)
        x = y - self.bias_vector
        x = torch.functional.F.linear(x, L_inv)
        x = torch.functional.F.linear(x, U_inv)
        return x

    @property
    def L(self) -> torch.Tensor:
        return self.L_raw.tril(-1) + torch.eye(self.dim).to(self.L_raw.device)

    @property
    def U(self) -> torch.Tensor:
        return self.U_raw.triu()

    def matrix(self) -> torch.Tensor:
        return LA.matmul(self.L, self.U)


class InverseFlow(nn.Module):
    """Sampling direction of a small flow: LU layers interleaved with LeakyReLU inverses."""

    def __init__(self, dim=8, n_layers=2, alpha=0.5):
        super().__init__()
        self.layers = nn.ModuleList([LUTransform(dim) for _ in range(n_layers)])
        self.alpha = alpha

    def forward(self, y):
        for i, layer in enumerate(reversed(self.layers)):
            if i > 0:
                y = torch.nn.functional.leaky_relu(y, negative_slope=1 / self.alpha)
            y = layer.backward(y)
        return y


def make_model():
    return InverseFlow()


def example_inputs():
    return (torch.randn(4, 8),)


def other_inputs():
    return [(torch.randn(7, 8),), (torch.randn(1, 8),)]


def probe_inputs():
    return other_inputs()
