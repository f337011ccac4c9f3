"""Exact Gaussian-process regressor (GPyTorch-style) whose predictive step is exported to ONNX: the
training-set Cholesky factor L of K(X, X) + noise*I is cached as a buffer, and each query batch runs
`torch.linalg.solve_triangular(L, K(X, x*), upper=False)` to get the predictive mean and variance.
The report asked for ONNX export of `aten::linalg_solve_triangular`, which the exporter does not have.

Source: https://github.com/pytorch/pytorch/issues/103572
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "num_queries"}}
BLIND = "operators-9"


class RBFKernel(nn.Module):
    def __init__(self, lengthscale=0.5, outputscale=1.0):
        super().__init__()
        self.lengthscale = nn.Parameter(torch.tensor(lengthscale))
        self.outputscale = nn.Parameter(torch.tensor(outputscale))

    def forward(self, x1, x2):
        x1 = x1 / self.lengthscale
        x2 = x2 / self.lengthscale
        sq = (x1 * x1).sum(-1, keepdim=True) - 2 * x1 @ x2.transpose(-2, -1) + (x2 * x2).sum(-1).unsqueeze(-2)
        return self.outputscale * torch.exp(-0.5 * sq.clamp_min(0))


class ExactGPPredictor(nn.Module):
    def __init__(self, train_x, train_y, noise=1e-2):
        super().__init__()
        self.kernel = RBFKernel()
        self.register_buffer("train_x", train_x)
        with torch.no_grad():
            K = self.kernel(train_x, train_x) + noise * torch.eye(train_x.shape[0])
            L = torch.linalg.cholesky(K)
            alpha = torch.cholesky_solve(train_y.unsqueeze(-1), L)
        self.register_buffer("chol", L)      # cached lower Cholesky factor
        self.register_buffer("alpha", alpha)  # K^-1 y

    def forward(self, x):
        k_star = self.kernel(self.train_x, x)                      # (n_train, n_query)
        mean = (k_star.transpose(-2, -1) @ self.alpha).squeeze(-1)
        v = torch.linalg.solve_triangular(self.chol, k_star, upper=False)
        var = self.kernel.outputscale - (v * v).sum(0)
        return mean, var.clamp_min(1e-9)


def make_model():
    g = torch.Generator().manual_seed(0)
    train_x = torch.rand(32, 2, generator=g)
    train_y = torch.sin(6 * train_x[:, 0]) + torch.cos(4 * train_x[:, 1])
    return ExactGPPredictor(train_x, train_y).eval()


def example_inputs():
    return (torch.rand(16, 2),)


def other_inputs():
    return [(torch.rand(40, 2),), (torch.rand(5, 2),)]


def probe_inputs():
    return other_inputs()
