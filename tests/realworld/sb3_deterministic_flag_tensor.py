"""Stable-Baselines3 PPO policy wrapped for ONNX (`OnnxableSB3Policy.forward(observation, deterministic=True)`
calling `self.policy(observation, deterministic=deterministic)`); the user wants to switch `deterministic` at
inference time, i.e. pass it as an input, but `DiagGaussianDistribution.get_actions` does
`if deterministic: return self.mode()` so the flag is a Python `if` on a tensor.

Source: https://github.com/DLR-RM/stable-baselines3/issues/2093
"""
import torch as th
from torch import nn
from torch.distributions import Normal

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"observation": {0: "batch"}}
BLIND = "domains-2"


def sum_independent_dims(tensor):
    if len(tensor.shape) > 1:
        tensor = tensor.sum(dim=1)
    else:
        tensor = tensor.sum()
    return tensor


class DiagGaussianDistribution:
    def __init__(self, action_dim):
        self.action_dim = action_dim

    def proba_distribution(self, mean_actions, log_std):
        action_std = th.ones_like(mean_actions) * log_std.exp()
        self.distribution = Normal(mean_actions, action_std)
        return self

    def mode(self):
        return self.distribution.mean

    def sample(self):
        return self.distribution.rsample()

    def get_actions(self, deterministic=False):
        if deterministic:
            return self.mode()
        return self.sample()

    def log_prob(self, actions):
        return sum_independent_dims(self.distribution.log_prob(actions))


class ActorCriticPolicy(nn.Module):
    def __init__(self, obs_dim=18, action_dim=10, net_arch=16):
        super().__init__()
        self.mlp_extractor = nn.Sequential(nn.Linear(obs_dim, net_arch), nn.Tanh())
        self.action_net = nn.Linear(net_arch, action_dim)
        self.value_net = nn.Linear(net_arch, 1)
        self.log_std = nn.Parameter(th.zeros(action_dim))
        self.action_dist = DiagGaussianDistribution(action_dim)
        self.action_shape = (action_dim,)

    def forward(self, obs, deterministic=False):
        latent = self.mlp_extractor(obs)
        values = self.value_net(latent)
        distribution = self.action_dist.proba_distribution(self.action_net(latent), self.log_std)
        actions = distribution.get_actions(deterministic=deterministic)
        log_prob = distribution.log_prob(actions)
        actions = actions.reshape((-1, *self.action_shape))
        return actions, values, log_prob


class OnnxableSB3Policy(nn.Module):
    def __init__(self, policy):
        super().__init__()
        self.policy = policy

    def forward(self, observation, deterministic=True):
        return self.policy(observation, deterministic=deterministic)


def make_model():
    return OnnxableSB3Policy(ActorCriticPolicy())


def example_inputs():
    return (th.randn(1, 18), th.tensor(True))


def other_inputs():
    return [(th.randn(4, 18), th.tensor(True)), (th.randn(2, 18), th.tensor(True))]


def probe_inputs():
    return other_inputs()
