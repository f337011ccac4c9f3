"""GPyTorch exact GP regression exported for inference through a MeanVarModelWrapper
(`output_dist.mean, output_dist.variance` under fast_pred_var/trace_mode): the predictive variance
is the diagonal of the dense predictive covariance, taken with `.diag()`, and torch.onnx.export
fails with "KeyError: 'diag'" (no symbolic for aten::diag). The ExactGP (ConstantMean +
ScaleKernel(RBFKernel) with precomputed mean/LOVE caches) is written out in plain torch.

Source: https://github.com/cornellius-gp/gpytorch/issues/1101
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "n_test"}}
BLIND = "operators-4"


def rbf(x1, x2, lengthscale, outputscale):
    x1_ = x1.unsqueeze(-1).div(lengthscale)
    x2_ = x2.unsqueeze(-1).div(lengthscale)
    sq = (x1_.unsqueeze(-2) - x2_.unsqueeze(-3)).pow(2).sum(-1)
    return outputscale * torch.exp(-0.5 * sq)


class ExactGPModel(nn.Module):
    def __init__(self, train_x, train_y, noise=0.04):
        super().__init__()
        self.register_buffer("train_x", train_x)
        self.constant = nn.Parameter(torch.tensor(0.1))
        self.raw_lengthscale = nn.Parameter(torch.tensor(-1.0))
        self.raw_outputscale = nn.Parameter(torch.tensor(0.5))
        with torch.no_grad():
            k = rbf(train_x, train_x, self.lengthscale, self.outputscale) + noise * torch.eye(len(train_x))
            # caches computed by the first prediction (mean cache and LOVE root of K^-1)
            self.register_buffer("mean_cache", torch.linalg.solve(k, train_y - self.constant))
            L = torch.linalg.cholesky(k)
            self.register_buffer("covar_cache", torch.linalg.inv(L).t())

    @property
    def lengthscale(self):
        return nn.functional.softplus(self.raw_lengthscale)

    @property
    def outputscale(self):
        return nn.functional.softplus(self.raw_outputscale)

    def forward(self, x):
        test_train_covar = rbf(x, self.train_x, self.lengthscale, self.outputscale)
        test_test_covar = rbf(x, x, self.lengthscale, self.outputscale)
        mean = self.constant + test_train_covar @ self.mean_cache
        covar_inv_quad_form_root = test_train_covar @ self.covar_cache
        covar = test_test_covar - covar_inv_quad_form_root @ covar_inv_quad_form_root.t()
        return mean, covar


class MeanVarModelWrapper(nn.Module):
    def __init__(self, gp):
        super().__init__()
        self.gp = gp

    def forward(self, x):
        mean, covar = self.gp(x)
        return mean, covar.diag()


def make_model():
    g = torch.Generator().manual_seed(0)
    train_x = torch.linspace(0, 1, 100)
    train_y = torch.sin(train_x * (2 * 3.14159)) + 0.2 * torch.randn(100, generator=g)
    return MeanVarModelWrapper(ExactGPModel(train_x, train_y)).eval()


def example_inputs():
    return (torch.linspace(0, 1, 51),)


def other_inputs():
    return [(torch.rand(17),), (torch.linspace(-0.2, 1.2, 80),)]


def probe_inputs():
    return other_inputs()
