"""Stable-Baselines3 ActorCriticPolicy (PPO, continuous actions) exported whole: forward builds the action
distribution (DiagGaussianDistribution -> torch.distributions.Normal(mean_actions, action_std)) and returns the
deterministic action, the value and the log-prob. The PR's export guide says the policy as is cannot be exported
("ONNX format doesn't support exporting models that use the broadcast_tensors functionality", which the Normal
distribution uses) and works around it by exporting only mlp_extractor/action_net/value_net. Layers copied from
SB3 (FlattenExtractor, MlpExtractor, DiagGaussianDistribution) without the library.

Source: https://github.com/DLR-RM/stable-baselines3/pull/464
"""
import torch as th
from torch import nn
from torch.distributions import Normal

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"obs": {0: "batch"}}
BLIND = "domains-51"


def sum_independent_dims(tensor: th.Tensor) -> th.Tensor:
    if len(tensor.shape) > 1:
        tensor = tensor.sum(dim=1)
    else:
        tensor = tensor.sum()
    return tensor


class DiagGaussianDistribution:
    def __init__(self, action_dim: int):
        self.action_dim = action_dim
        self.distribution = None

    def proba_distribution_net(self, latent_dim: int, log_std_init: float = 0.0):
        mean_actions = nn.Linear(latent_dim, self.action_dim)
        log_std = nn.Parameter(th.ones(self.action_dim) * log_std_init, requires_grad=True)
        return mean_actions, log_std

    def proba_distribution(self, mean_actions: th.Tensor, log_std: th.Tensor) -> "DiagGaussianDistribution":
        action_std = th.ones_like(mean_actions) * log_std.exp()
        self.distribution = Normal(mean_actions, action_std)
        return self

    def log_prob(self, actions: th.Tensor) -> th.Tensor:
        log_prob = self.distribution.log_prob(actions)
        return sum_independent_dims(log_prob)

    def mode(self) -> th.Tensor:
        return self.distribution.mean

    def sample(self) -> th.Tensor:
        return self.distribution.rsample()

    def get_actions(self, deterministic: bool = False) -> th.Tensor:
        if deterministic:
            return self.mode()
        return self.sample()


class MlpExtractor(nn.Module):
    def __init__(self, feature_dim, net_arch=(64, 64), activation_fn=nn.Tanh):
        super().__init__()
        pi, vf, last_pi, last_vf = [], [], feature_dim, feature_dim
        for size in net_arch:
            pi += [nn.Linear(last_pi, size), activation_fn()]
            vf += [nn.Linear(last_vf, size), activation_fn()]
            last_pi = last_vf = size
        self.latent_dim_pi, self.latent_dim_vf = last_pi, last_vf
        self.policy_net, self.value_net = nn.Sequential(*pi), nn.Sequential(*vf)

    def forward(self, features):
        return self.policy_net(features), self.value_net(features)


class ActorCriticPolicy(nn.Module):
    def __init__(self, obs_dim=3, action_dim=1):
        super().__init__()
        self.action_shape = (action_dim,)
        self.features_extractor = nn.Flatten()
        self.mlp_extractor = MlpExtractor(obs_dim)
        self.action_dist = DiagGaussianDistribution(action_dim)
        self.action_net, self.log_std = self.action_dist.proba_distribution_net(self.mlp_extractor.latent_dim_pi)
        self.value_net = nn.Linear(self.mlp_extractor.latent_dim_vf, 1)

    def extract_features(self, obs):
        return self.features_extractor(obs.float())

    def _get_action_dist_from_latent(self, latent_pi):
        mean_actions = self.action_net(latent_pi)
        return self.action_dist.proba_distribution(mean_actions, self.log_std)

    def forward(self, obs: th.Tensor, deterministic: bool = True):
        features = self.extract_features(obs)
        latent_pi, latent_vf = self.mlp_extractor(features)
        # Evaluate the values for the given observations
        values = self.value_net(latent_vf)
        distribution = self._get_action_dist_from_latent(latent_pi)
        actions = distribution.get_actions(deterministic=deterministic)
        log_prob = distribution.log_prob(actions)
        actions = actions.reshape((-1, *self.action_shape))
        return actions, values, log_prob


def make_model():
    return ActorCriticPolicy()


def example_inputs():
    return (th.randn(4, 3),)


def other_inputs():
    return [(th.randn(9, 3),), (th.randn(1, 3),)]


def probe_inputs():
    return other_inputs()
