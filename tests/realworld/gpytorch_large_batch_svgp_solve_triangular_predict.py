"""GPyTorch's LargeBatchVariationalStrategy (SVGP) called `torch.linalg.solve_triangular` against the Cholesky factor
of K_ZZ on every forward, also in eval mode; the PR that caches those solves notes that ONNX does not support
triangular solves, so the variational GP prediction (Cholesky + triangular solves, in float64) could not be exported.
The model below is the strategy before that change (the K_ZZ Cholesky factor is cached in eval mode, as in GPyTorch).

Source: https://github.com/cornellius-gp/gpytorch/pull/2698
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-22"


class RBFKernel(nn.Module):
    def __init__(self):
        super().__init__()
        self.raw_lengthscale = nn.Parameter(torch.zeros(1))
        self.raw_outputscale = nn.Parameter(torch.zeros(1))

    def forward(self, x1, x2):
        ls = nn.functional.softplus(self.raw_lengthscale)
        os_ = nn.functional.softplus(self.raw_outputscale)
        d2 = ((x1.unsqueeze(-2) - x2.unsqueeze(-3)) / ls).pow(2).sum(-1)
        return os_ * torch.exp(-0.5 * d2)


class LargeBatchSVGP(nn.Module):
    def __init__(self, num_inducing=16, dim=3):
        super().__init__()
        self.inducing_points = nn.Parameter(torch.randn(num_inducing, dim))
        self.variational_mean = nn.Parameter(torch.randn(num_inducing) * 0.1)
        self.chol_variational_covar = nn.Parameter(torch.eye(num_inducing) * 0.5)
        self.covar_module = RBFKernel()
        self._memoize_cache = {}

    def train(self, mode=True):
        # Make sure we are clearing the cache if we change modes
        if (self.training and not mode) or mode:
            self._memoize_cache = {}
        return super().train(mode)

    def _cholesky_factor(self, induc_induc_covar):
        # gpytorch: @cached(name="cholesky_factor", ignore_args=True) -- kept while the model stays in eval mode
        if "cholesky_factor" in self._memoize_cache:
            return self._memoize_cache["cholesky_factor"]
        L = torch.linalg.cholesky(induc_induc_covar.type(torch.float64))
        if not self.training:
            self._memoize_cache["cholesky_factor"] = L.detach()
        return L

    def _compute_predictive_updates(self, chol, induc_data_covar, inducing_values, variational_inducing_covar,
                                    prior_covar):
        dtype = induc_data_covar.dtype
        chol = chol.type(torch.float64)
        induc_data_covar = induc_data_covar.type(torch.float64)
        inducing_values = inducing_values.type(torch.float64)

        # The mean update `k_XZ K_ZZ^{-1/2} (m - K_ZZ^{-1/2} \mu_Z)`
        inv_chol_t_inducing_values = torch.linalg.solve_triangular(
            chol.mT, inducing_values.unsqueeze(-1), upper=True, left=True
        )
        mean_update = (induc_data_covar.mT @ inv_chol_t_inducing_values).squeeze(-1).type(dtype)

        # The grouped middle term `K_ZZ^{-1/2} (S - I) K_ZZ^{-1/2}`
        middle_term = prior_covar.mul(-1)
        middle_term = variational_inducing_covar + middle_term
        middle_term = middle_term.type(torch.float64)
        middle_term = torch.linalg.solve_triangular(chol, middle_term, upper=False, left=False)
        middle_term = torch.linalg.solve_triangular(chol.mT, middle_term, upper=True, left=True)

        variance_update = torch.sum(induc_data_covar * (middle_term @ induc_data_covar), dim=-2)
        return mean_update, variance_update.type(dtype)

    def forward(self, x):
        z = self.inducing_points
        induc_induc_covar = self.covar_module(z, z) + 1e-4 * torch.eye(z.size(0))
        induc_data_covar = self.covar_module(z, x)
        data_data_var = self.covar_module.raw_outputscale.new_ones(x.size(0)) * nn.functional.softplus(
            self.covar_module.raw_outputscale)
        chol = self._cholesky_factor(induc_induc_covar)
        L = torch.tril(self.chol_variational_covar)
        variational_inducing_covar = L @ L.mT
        prior_covar = torch.eye(z.size(0))
        mean, var_update = self._compute_predictive_updates(
            chol, induc_data_covar, self.variational_mean, variational_inducing_covar, prior_covar)
        return mean, data_data_var + var_update


def make_model():
    model = LargeBatchSVGP().eval()
    with torch.no_grad():
        model(torch.randn(8, 3))  # Do precomputation (as in GPyTorch's export examples)
    return model


def example_inputs():
    return (torch.randn(32, 3),)


def other_inputs():
    return [(torch.randn(57, 3),), (torch.randn(5, 3),)]


def probe_inputs():
    return other_inputs()
