"""Stable-Baselines3 PPO `MultiInputPolicy` (Dict observation space) wrapped in the documented
`OnnxableSB3Policy`, whose `forward(observation)` calls `policy._predict(observation, deterministic=True)` with
a dict of tensors; `th.onnx.export(onnx_policy, obs_dict, ...)` treats the dict as keyword arguments
("otherwise pytorch try to use it as keyword arguments"), and the maintainer's attempts did not give a loadable model.

Source: https://github.com/DLR-RM/stable-baselines3/issues/1873
"""
from typing import Dict

import torch as th
from torch import nn

CLASS = "exporter-defaults"
FAMILY = "shape_math"
DYNAMIC = {}   # the observation dict cannot be named for dynamic axes; exported for a single env (batch 1)
BLIND = "domains-14"


class CombinedExtractor(nn.Module):
    """Flattens every Box sub-observation and concatenates them (SB3's default for Dict spaces)."""

    def __init__(self, subspace_dims: Dict[str, int]):
        super().__init__()
        extractors = {}
        total_concat_size = 0
        for key, dim in subspace_dims.items():
            extractors[key] = nn.Flatten()
            total_concat_size += dim
        self.extractors = nn.ModuleDict(extractors)
        self._features_dim = total_concat_size

    def forward(self, observations: Dict[str, th.Tensor]) -> th.Tensor:
        encoded_tensor_list = []
        for key, extractor in self.extractors.items():
            encoded_tensor_list.append(extractor(observations[key]))
        return th.cat(encoded_tensor_list, dim=1)


class MultiInputActorCriticPolicy(nn.Module):
    def __init__(self, subspace_dims={"a": 2, "b": 3}, n_actions=3, net_arch=64):
        super().__init__()
        self.features_extractor = CombinedExtractor(subspace_dims)
        self.policy_net = nn.Sequential(nn.Linear(self.features_extractor._features_dim, net_arch), nn.Tanh())
        self.action_net = nn.Linear(net_arch, n_actions)

    def obs_to_float(self, obs: Dict[str, th.Tensor]) -> Dict[str, th.Tensor]:
        # preprocess_obs: Box observations are only cast to float
        return {key: _obs.float() for (key, _obs) in obs.items()}

    def get_distribution(self, obs: Dict[str, th.Tensor]) -> th.distributions.Categorical:
        features = self.features_extractor(self.obs_to_float(obs))
        latent_pi = self.policy_net(features)
        action_logits = self.action_net(latent_pi)
        return th.distributions.Categorical(logits=action_logits)

    def _predict(self, observation: Dict[str, th.Tensor], deterministic: bool = False) -> th.Tensor:
        distribution = self.get_distribution(observation)
        if deterministic:
            return th.argmax(distribution.probs, dim=1)
        return distribution.sample()


class OnnxableSB3Policy(th.nn.Module):
    def __init__(self, policy):
        super().__init__()
        self.policy = policy

    def forward(self, observation):
        # NOTE: Preprocessing is included, but postprocessing
        # (clipping/inscaling actions) is not,
        return self.policy._predict(observation, deterministic=True)


def make_model():
    return OnnxableSB3Policy(MultiInputActorCriticPolicy()).eval()


def example_inputs():
    return ({"a": th.rand(1, 2) * 2 - 1, "b": th.rand(1, 3) * 2 - 1},)


def other_inputs():
    return [({"a": th.rand(1, 2) * 2 - 1, "b": th.rand(1, 3) * 2 - 1},),
            ({"a": th.rand(1, 2) * 2 - 1, "b": th.rand(1, 3) * 2 - 1},)]


def probe_inputs():
    return other_inputs()
