"""ML-Agents continuous-action policy head: GaussianDistribution expands its state-independent log_sigma to the batch
with `torch.cat([self.log_sigma] * inputs.shape[0], axis=0)` (a Python list sized by the batch, because Barracuda
lacked `expand`); the exported model carried the export-time batch size and failed at inference with other batch
sizes, fixed upstream by deriving the batch size from `mu` instead. Sampling is replaced by evaluating given actions
(ML-Agents' evaluate path) so the outputs are deterministic.

Source: https://github.com/Unity-Technologies/ml-agents/pull/4766
"""
import math
from typing import List

import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"obs": {0: "batch"}, "actions": {0: "batch"}}
BLIND = "domains-4"

EPSILON = 1e-7  # Small value to avoid divide by zero


class GaussianDistInstance(nn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.mean = mean
        self.std = std

    def sample(self):
        sample = self.mean + torch.randn_like(self.mean) * self.std
        return sample

    def log_prob(self, value):
        var = self.std ** 2
        log_scale = torch.log(self.std + EPSILON)
        return (
            -((value - self.mean) ** 2) / (2 * var + EPSILON)
            - log_scale
            - math.log(math.sqrt(2 * math.pi))
        )

    def entropy(self):
        return torch.mean(
            0.5 * torch.log(2 * math.pi * math.e * self.std + EPSILON),
            dim=1,
            keepdim=True,
        )  # Use equivalent behavior to TF


class GaussianDistribution(nn.Module):
    def __init__(self, hidden_size: int, num_outputs: int, conditional_sigma: bool = False):
        super().__init__()
        self.conditional_sigma = conditional_sigma
        self.mu = nn.Linear(hidden_size, num_outputs)
        if conditional_sigma:
            self.log_sigma = nn.Linear(hidden_size, num_outputs)
        else:
            self.log_sigma = nn.Parameter(torch.zeros(1, num_outputs, requires_grad=True))

    def forward(self, inputs: torch.Tensor) -> List[GaussianDistInstance]:
        mu = self.mu(inputs)
        if self.conditional_sigma:
            log_sigma = torch.clamp(self.log_sigma(inputs), min=-20, max=2)
        else:
            # Expand so that entropy matches batch size. Note that we're using
            # torch.cat here instead of torch.expand() becuase it is not supported in the
            # verified version of Barracuda (1.0.2).
            log_sigma = torch.cat([self.log_sigma] * inputs.shape[0], axis=0)
        return [GaussianDistInstance(mu, torch.exp(log_sigma))]


class SimpleActor(nn.Module):
    def __init__(self, obs_size=8, hidden_size=32, act_size=2):
        super().__init__()
        self.network_body = nn.Sequential(nn.Linear(obs_size, hidden_size), nn.SiLU(),
                                          nn.Linear(hidden_size, hidden_size), nn.SiLU())
        self.distribution = GaussianDistribution(hidden_size, act_size)
        with torch.no_grad():
            self.distribution.log_sigma.copy_(torch.linspace(-1.0, 0.5, act_size).unsqueeze(0))

    def forward(self, obs, actions):
        encoding = self.network_body(obs)
        dists = self.distribution(encoding)
        log_probs = dists[0].log_prob(actions)
        entropy = dists[0].entropy()
        return log_probs, entropy


def make_model():
    return SimpleActor().eval()


def example_inputs():
    return (torch.randn(2, 8), torch.randn(2, 2))


def other_inputs():
    return [(torch.randn(5, 8), torch.randn(5, 2)), (torch.randn(3, 8), torch.randn(3, 2))]


def probe_inputs():
    return other_inputs()
