"""Godot RL Agents' `export_model_as_onnx` for a Stable-Baselines3 SAC agent: `OnnxablePolicy.forward(obs, state_ins)`
returns `self.actor(observation, deterministic=True), state_ins`; SB3's SAC `Actor` builds a
`SquashedDiagGaussianDistribution` (a `torch.distributions.Normal`) and takes its tanh-squashed mode. The PR
reports that the export broke once torch 2.9 made `dynamo=True` the default, and pins `dynamo=False`.

Source: https://github.com/edbeeching/godot_rl_agents/pull/254
"""
import torch as th
from torch import nn
from torch.distributions import Normal

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"obs": {0: "batch_size"}, "state_ins": {0: "batch_size"}}
BLIND = "domains-45"

LOG_STD_MAX = 2
LOG_STD_MIN = -20


class DiagGaussianDistribution:
    def __init__(self, action_dim):
        self.action_dim = action_dim
        self.distribution = None

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

    def actions_from_params(self, mean_actions, log_std, deterministic=False):
        # Update the proba distribution
        self.proba_distribution(mean_actions, log_std)
        return self.get_actions(deterministic=deterministic)


class SquashedDiagGaussianDistribution(DiagGaussianDistribution):
    def __init__(self, action_dim, epsilon=1e-6):
        super().__init__(action_dim)
        self.epsilon = epsilon
        self.gaussian_actions = None

    def mode(self):
        self.gaussian_actions = super().mode()
        # Squash the output
        return th.tanh(self.gaussian_actions)


class Actor(nn.Module):
    def __init__(self, obs_dim=12, action_dim=2, net_arch=(64, 64)):
        super().__init__()
        self.features_extractor = nn.Flatten()
        layers, last = [], obs_dim
        for units in net_arch:
            layers += [nn.Linear(last, units), nn.ReLU()]
            last = units
        self.latent_pi = nn.Sequential(*layers)
        self.action_dist = SquashedDiagGaussianDistribution(action_dim)
        self.mu = nn.Linear(last, action_dim)
        self.log_std = nn.Linear(last, action_dim)

    def get_action_dist_params(self, obs):
        features = self.features_extractor(obs.float())
        latent_pi = self.latent_pi(features)
        mean_actions = self.mu(latent_pi)
        # Unstructured exploration (Original implementation)
        log_std = self.log_std(latent_pi)
        # Original Implementation to cap the standard deviation
        log_std = th.clamp(log_std, LOG_STD_MIN, LOG_STD_MAX)
        return mean_actions, log_std, {}

    def forward(self, obs, deterministic=False):
        mean_actions, log_std, kwargs = self.get_action_dist_params(obs)
        # Note: the action is squashed
        return self.action_dist.actions_from_params(mean_actions, log_std, deterministic=deterministic, **kwargs)


class OnnxablePolicy(th.nn.Module):
    def __init__(self, obs_keys=None, features_extractor=None, mlp_extractor=None, action_net=None,
                 value_net=None, use_obs_array=None, actor=None):
        super().__init__()
        self.obs_keys = obs_keys
        self.features_extractor = features_extractor
        self.mlp_extractor = mlp_extractor
        self.action_net = action_net
        self.value_net = value_net
        self.use_obs_array = use_obs_array
        self.actor = actor

    def forward_sac(self, observation: th.Tensor, state_ins):
        return self.actor(observation, deterministic=True), state_ins

    def forward_ppo(self, obs, state_ins):
        if self.use_obs_array:
            features = self.features_extractor(obs)
        else:
            obs_dict = {k: v for k, v in zip(self.obs_keys, obs)}
            features = self.features_extractor(obs_dict)
        action_hidden, value_hidden = self.mlp_extractor(features)
        return self.action_net(action_hidden), state_ins

    def forward(self, obs, state_ins):
        if self.actor:
            return self.forward_sac(obs, state_ins)
        else:
            return self.forward_ppo(obs, state_ins)


def make_model():
    return OnnxablePolicy(actor=Actor()).eval()


def example_inputs():
    # export_model_as_onnx: dummy_input = torch.randn(1, *obs_shape), state_ins = torch.zeros(1).float()
    return (th.randn(1, 12), th.zeros(1).float())


def other_inputs():
    return [(th.randn(4, 12), th.zeros(4)), (th.randn(7, 12), th.zeros(7))]


def probe_inputs():
    return other_inputs()
