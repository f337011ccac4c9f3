"""GPyTorch ExactGP conditioned on new points with `get_fantasy_model`: the fantasy prediction strategy
stores `new_covar_cache = new_lt.root_inv_decomposition().root` (not detached, unlike the other test
caches) in its memoize cache, and the predictive mean/variance wrapper can then no longer be JIT
traced / exported ("Cannot insert a Tensor that requires grad as a constant").  GPyTorch internals are
re-created here with plain tensors (RBF * scale kernel, constant mean, Gaussian noise).

Source: https://github.com/cornellius-gp/gpytorch/issues/2604
"""
import torch
from torch import nn
from torch.nn import functional as F

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "n_test"}}
BLIND = "domains-74"


class DefaultPredictionStrategy(object):
    def __init__(self, train_inputs, train_prior_mean, lik_train_train_covar, train_labels):
        self.train_inputs = train_inputs
        self.train_prior_mean = train_prior_mean
        self.lik_train_train_covar = lik_train_train_covar
        self.train_labels = train_labels
        self._memoize_cache = {}

    def get_fantasy_strategy(self, full_inputs, full_targets, full_mean, full_covar, detach_test_caches=True):
        # now update the root and root inverse
        new_root = torch.linalg.cholesky(full_covar)
        new_covar_cache = torch.linalg.inv(new_root).mT  # root_inv_decomposition().root
        new_mean_cache = torch.cholesky_solve((full_targets - full_mean).unsqueeze(-1), new_root).squeeze(-1)
        if detach_test_caches:
            new_mean_cache = new_mean_cache.detach()
        fant_strat = DefaultPredictionStrategy(full_inputs, full_mean, full_covar, full_targets)
        fant_strat._memoize_cache["mean_cache"] = new_mean_cache
        fant_strat._memoize_cache["covar_cache"] = new_covar_cache
        return fant_strat

    @property
    def mean_cache(self):
        return self._memoize_cache["mean_cache"]

    @property
    def covar_cache(self):
        return self._memoize_cache["covar_cache"]

    def exact_predictive_mean(self, test_mean, test_train_covar):
        return (test_train_covar @ self.mean_cache.unsqueeze(-1)).squeeze(-1) + test_mean

    def exact_predictive_covar(self, test_test_covar_diag, test_train_covar):
        covar_inv_quad_form_root = test_train_covar @ self.covar_cache
        return test_test_covar_diag - covar_inv_quad_form_root.pow(2).sum(-1)


class ExactGPModel(nn.Module):
    def __init__(self, train_x, train_y):
        super().__init__()
        self.train_inputs, self.train_targets = train_x, train_y
        self.constant = nn.Parameter(torch.tensor(0.1))
        self.raw_lengthscale = nn.Parameter(torch.tensor(-1.0))
        self.raw_outputscale = nn.Parameter(torch.tensor(0.5))
        self.raw_noise = nn.Parameter(torch.tensor(-2.0))
        self.prediction_strategy = None

    def covar_module(self, x1, x2):
        x1, x2 = x1.unsqueeze(-1), x2.unsqueeze(-1)
        lengthscale = F.softplus(self.raw_lengthscale)
        dist = (x1.div(lengthscale) - x2.div(lengthscale).transpose(-2, -1)).pow(2)
        return F.softplus(self.raw_outputscale) * torch.exp(-0.5 * dist)

    def get_fantasy_model(self, inputs, targets):
        full_inputs = torch.cat([self.train_inputs, inputs], dim=-1)
        full_targets = torch.cat([self.train_targets, targets], dim=-1)
        full_mean = self.constant.expand(full_inputs.shape)
        full_covar = self.covar_module(full_inputs, full_inputs)
        full_covar = full_covar + F.softplus(self.raw_noise) * torch.eye(full_inputs.shape[-1])
        fantasy_model = ExactGPModel(full_inputs, full_targets)
        fantasy_model.load_state_dict(self.state_dict())
        fantasy_model.prediction_strategy = DefaultPredictionStrategy(
            self.train_inputs, None, None, self.train_targets).get_fantasy_strategy(
            full_inputs, full_targets, full_mean, full_covar)
        return fantasy_model

    def forward(self, x):
        test_mean = self.constant.expand(x.shape)
        test_train_covar = self.covar_module(x, self.train_inputs)
        test_test_covar_diag = F.softplus(self.raw_outputscale).expand(x.shape)
        mean = self.prediction_strategy.exact_predictive_mean(test_mean, test_train_covar)
        variance = self.prediction_strategy.exact_predictive_covar(test_test_covar_diag, test_train_covar)
        return mean, variance


class MeanVarModelWrapper(nn.Module):
    def __init__(self, gp):
        super().__init__()
        self.gp = gp

    def forward(self, x):
        return self.gp(x)


def make_model():
    X = torch.linspace(0, 1, 100)
    y = torch.sin(X * (2 * 3.141592653589793)) + torch.randn(X.size()) * 0.2
    train_x, fantasy_x = X[:90], X[90:]
    train_y, fantasy_y = y[:90], y[90:]
    model = ExactGPModel(train_x, train_y).eval()
    fantasy_model = model.get_fantasy_model(fantasy_x, fantasy_y)
    return MeanVarModelWrapper(fantasy_model).eval()


def example_inputs():
    return (torch.rand(40),)


def other_inputs():
    return [(torch.rand(17),), (torch.rand(63),)]


def probe_inputs():
    return other_inputs()
