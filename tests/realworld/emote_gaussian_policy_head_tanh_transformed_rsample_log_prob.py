"""Embark's emote SAC policy (`GaussianMlpPolicy` / `GaussianPolicyHead`) as it was before ONNX export was enabled:
forward builds `TransformedDistribution(Independent(Normal(mean, std), 1), RobustTanhTransform())`, draws
`dist.rsample()` and returns it with `dist.log_prob(sample).view(bsz, 1)` plus shape asserts. The issue asks for a
shim so the policy head can be exported to ONNX "without logprob path"; the fix (PR #80) injects `epsilon` as an
input and returns `tanh(mean + std * epsilon)` outside training.

Source: https://github.com/EmbarkStudios/emote/issues/72
"""
from typing import Tuple

import torch
import torch.distributions as dists
import torch.distributions.transforms as transforms
import torch.nn as nn

from torch import Tensor

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"obs": {0: "batch"}}
BLIND = "domains-67"


class RobustTanhTransform(transforms.TanhTransform):
    def _inverse(self, y):
        eps = torch.finfo(y.dtype).eps
        input_val = y.clamp(min=-1.0 + eps, max=1.0 - eps)
        return torch.atanh(input_val)


class GaussianPolicyHead(nn.Module):
    def __init__(self, hidden_dim: int, action_dim: int):
        super(GaussianPolicyHead, self).__init__()
        self.action_dim = action_dim
        self.hidden_dim = hidden_dim
        self.mean = nn.Linear(hidden_dim, action_dim)
        self.log_std = nn.Linear(hidden_dim, action_dim)

    def forward(self, x: Tensor) -> Tuple[Tensor, float]:
        bsz, _ = x.shape

        mean = self.mean(x).clamp(min=-5, max=5)  # equates to 0.99991 after tanh.
        std = torch.exp(self.log_std(x).clamp(min=-20, max=2))

        dist = dists.TransformedDistribution(
            dists.Independent(dists.Normal(mean, std), 1),
            RobustTanhTransform(),
        )
        sample = dist.rsample()
        log_prob = dist.log_prob(sample).view(bsz, 1)

        assert sample.shape == (bsz, self.action_dim)
        assert log_prob.shape == (bsz, 1)

        return sample, log_prob


class GaussianMlpPolicy(nn.Module):
    def __init__(self, observation_dim, action_dim, hidden_dims):
        super().__init__()
        self.encoder = nn.Sequential(
            *[
                nn.Sequential(nn.Linear(n_in, n_out), nn.ReLU())
                for n_in, n_out in zip([observation_dim] + hidden_dims, hidden_dims)
            ],
        )
        self.policy = GaussianPolicyHead(hidden_dims[-1], action_dim)

    def forward(self, obs):
        return self.policy(self.encoder(obs))


def make_model():
    return GaussianMlpPolicy(8, 2, [32, 32]).eval()


def example_inputs():
    return (torch.randn(4, 8),)


def other_inputs():
    return [(torch.randn(9, 8),), (torch.randn(1, 8),)]


def probe_inputs():
    return other_inputs()
