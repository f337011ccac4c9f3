"""Soft-actor-critic actor (torchbench `soft_actor_critic`) that builds a squashed Gaussian
`pyd.Normal(mu, std)` + `TanhTransform` and returns the deterministic action; non-strict export stops
with "Could not guard on data-dependent expression Eq(u0, 1)" inside `torch.distributions.Normal`
(the argument validation reduces a constraint mask to a Python bool).

Source: https://github.com/pytorch/pytorch/issues/135061
"""
import math

import torch
from torch import nn
import torch.nn.functional as F
from torch import distributions as pyd

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"obs": {0: "batch"}}
BLIND = "domains-3"


class TanhTransform(pyd.transforms.Transform):
    domain = pyd.constraints.real
    codomain = pyd.constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def __init__(self, cache_size=1):
        super().__init__(cache_size=cache_size)

    @staticmethod
    def atanh(x):
        return 0.5 * (x.log1p() - (-x).log1p())

    def __eq__(self, other):
        return isinstance(other, TanhTransform)

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return self.atanh(y)

    def log_abs_det_jacobian(self, x, y):
        return 2. * (math.log(2.) - x - F.softplus(-2. * x))


class SquashedNormal(pyd.transformed_distribution.TransformedDistribution):
    def __init__(self, loc, scale):
        self.loc = loc
        self.scale = scale
        self.base_dist = pyd.Normal(loc, scale)
        transforms = [TanhTransform()]
        super().__init__(self.base_dist, transforms)

    @property
    def mean(self):
        mu = self.loc
        for tr in self.transforms:
            mu = tr(mu)
        return mu


class DiagGaussianActor(nn.Module):
    def __init__(self, obs_dim=17, action_dim=6, hidden_dim=32, log_std_bounds=(-5, 2)):
        super().__init__()
        self.log_std_bounds = log_std_bounds
        self.trunk = nn.Sequential(nn.Linear(obs_dim, hidden_dim), nn.ReLU(),
                                   nn.Linear(hidden_dim, hidden_dim), nn.ReLU(),
                                   nn.Linear(hidden_dim, 2 * action_dim))

    def forward(self, obs):
        mu, log_std = self.trunk(obs).chunk(2, dim=-1)
        log_std = torch.tanh(log_std)
        log_std_min, log_std_max = self.log_std_bounds
        log_std = log_std_min + 0.5 * (log_std_max - log_std_min) * (log_std + 1)
        std = log_std.exp()
        dist = SquashedNormal(mu, std)
        return dist.mean


def make_model():
    return DiagGaussianActor()


def example_inputs():
    return (torch.randn(4, 17),)


def other_inputs():
    return [(torch.randn(7, 17),), (torch.randn(2, 17),)]


def probe_inputs():
    return other_inputs()
