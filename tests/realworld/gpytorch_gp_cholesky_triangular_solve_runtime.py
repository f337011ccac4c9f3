"""Gaussian Process regression model (GPyTorch-style) converted to ONNX: at inference the model factorises
the train covariance with a Cholesky decomposition and does triangular solves to get the predictive mean and
variance; the report asks for linear-algebra operators because these models cannot be converted (no ONNX op
for Cholesky / triangular solve).

Source: https://github.com/onnx/onnx/issues/7144
"""
import math

import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "n_test"}}
BLIND = "operators-8"


class RBFKernel(nn.Module):
    def __init__(self):
        super().__init__()
        self.raw_lengthscale = nn.Parameter(torch.tensor(0.3))
        self.raw_outputscale = nn.Parameter(torch.tensor(0.5))

    def forward(self, x1, x2):
        lengthscale = nn.functional.softplus(self.raw_lengthscale)
        outputscale = nn.functional.softplus(self.raw_outputscale)
        sq_dist = (x1.unsqueeze(-2) - x2.unsqueeze(-3)).pow(2).sum(-1)
        return outputscale * torch.exp(-0.5 * sq_dist / lengthscale ** 2)


class ExactGPPredictor(nn.Module):
    def __init__(self, train_x, train_y):
        super().__init__()
        self.register_buffer("train_x", train_x)
        self.register_buffer("train_y", train_y)
        self.covar_module = RBFKernel()
        self.mean_constant = nn.Parameter(torch.tensor(0.1))
        self.raw_noise = nn.Parameter(torch.tensor(-2.0))

    def forward(self, x):
        noise = nn.functional.softplus(self.raw_noise)
        n = self.train_x.shape[0]
        K = self.covar_module(self.train_x, self.train_x) + noise * torch.eye(n)
        K_star = self.covar_module(x, self.train_x)
        K_ss_diag = nn.functional.softplus(self.covar_module.raw_outputscale).expand(x.shape[0])

        # Cholesky decomposition + triangular solves at runtime
        L = torch.linalg.cholesky(K)
        resid = (self.train_y - self.mean_constant).unsqueeze(-1)
        alpha = torch.cholesky_solve(resid, L)
        mean = self.mean_constant + (K_star @ alpha).squeeze(-1)
        v = torch.linalg.solve_triangular(L, K_star.transpose(-1, -2), upper=False)
        variance = K_ss_diag - v.pow(2).sum(-2)
        return mean, variance


def make_model():
    train_x = torch.linspace(0, 1, 20).unsqueeze(-1)
    train_y = torch.sin(train_x.squeeze(-1) * (2 * math.pi))
    return ExactGPPredictor(train_x, train_y).eval()


def example_inputs():
    return (torch.rand(7, 1),)


def other_inputs():
    return [(torch.rand(13, 1),), (torch.rand(2, 1),)]


def probe_inputs():
    return other_inputs()
