"""Stable-Baselines3 SAC actor exported for use outside Python (Matlab). The user wants the ONNX model to return
the actions `model.predict()` returns, but SB3 does that post-processing in NumPy (`actions.cpu().numpy()`, then
`unscale_action` to the Box bounds, or `np.clip`); the report says "ONNX does not support post processing, like
clipping, the output of onnx was not correct". The wrapper below puts `predict()`'s NumPy post-processing in forward.

Source: https://github.com/DLR-RM/stable-baselines3/issues/2105
"""
import numpy as np
import torch as th
from torch import nn

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {"observation": {0: "batch"}}
BLIND = "domains-67"

LOG_STD_MAX = 2
LOG_STD_MIN = -20


class Box:
    """The few attributes of gymnasium.spaces.Box that SB3 reads."""

    def __init__(self, low, high, shape):
        self.low = np.full(shape, low, dtype=np.float32)
        self.high = np.full(shape, high, dtype=np.float32)
        self.shape = shape


class Actor(nn.Module):
    def __init__(self, obs_dim, action_dim, net_arch=(64, 64)):
        super().__init__()
        layers, last = [], obs_dim
        for h in net_arch:
            layers += [nn.Linear(last, h), nn.ReLU()]
            last = h
        self.latent_pi = nn.Sequential(*layers)
        self.mu = nn.Linear(last, action_dim)
        self.log_std = nn.Linear(last, action_dim)

    def get_action_dist_params(self, obs):
        latent_pi = self.latent_pi(th.flatten(obs, start_dim=1))
        mean_actions = self.mu(latent_pi)
        log_std = self.log_std(latent_pi)
        log_std = th.clamp(log_std, LOG_STD_MIN, LOG_STD_MAX)
        return mean_actions, log_std, {}

    def forward(self, obs, deterministic=True):
        mean_actions, log_std, kwargs = self.get_action_dist_params(obs)
        # SquashedDiagGaussianDistribution.mode(): tanh of the Gaussian mean
        return th.tanh(mean_actions)


class OnnxablePolicy(nn.Module):
    def __init__(self, actor, action_space):
        super().__init__()
        self.actor = actor
        self.action_space = action_space
        self.squash_output = True

    def unscale_action(self, scaled_action):
        low, high = self.action_space.low, self.action_space.high
        return low + (0.5 * (scaled_action + 1.0) * (high - low))

    def forward(self, observation):
        with th.no_grad():
            actions = self.actor(observation, deterministic=True)
        # Convert to numpy, and reshape to the original action shape
        actions = actions.cpu().numpy().reshape((-1, *self.action_space.shape))
        if self.squash_output:
            # Rescale to proper domain when using squashing
            actions = self.unscale_action(actions)
        else:
            actions = np.clip(actions, self.action_space.low, self.action_space.high)
        return th.as_tensor(actions)


def make_model():
    action_space = Box(low=np.array([0.0, -2.0, 10.0]), high=np.array([1.0, 2.0, 50.0]), shape=(3,))
    return OnnxablePolicy(Actor(8, 3), action_space).eval()


def example_inputs():
    return (th.randn(4, 8),)


def other_inputs():
    return [(th.randn(7, 8),), (th.randn(1, 8),)]


def probe_inputs():
    return other_inputs()
