"""RLlib (old API stack) PPO policy with a fully connected network and `free_log_std=True`, exported with
`algo.export_policy_model(export_dir, onnx=20)` (dummy batch of 32, batch axis dynamic). The free log-std head is
`AppendBiasLayer`, which appends the state-independent log_std with `.repeat([len(x), 1])`: the exported graph has
input [-1, num_features] but output [32, 6], so the batch size is not variable. Pendulum-style box obs, 3 actions.

Source: https://github.com/ray-project/ray/issues/51519
"""
import numpy as np
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"obs": {0: "batch"}}
BLIND = "domains-7"


class SlimFC(nn.Module):
    """Simple PyTorch version of `linear` function"""

    def __init__(self, in_size, out_size, activation_fn=None):
        super().__init__()
        layers = [nn.Linear(in_size, out_size, bias=True)]
        if activation_fn is not None:
            layers.append(activation_fn())
        self._model = nn.Sequential(*layers)

    def forward(self, x):
        return self._model(x)


class AppendBiasLayer(nn.Module):
    """Simple bias appending layer for free_log_std."""

    def __init__(self, num_bias_vars: int):
        super().__init__()
        self.log_std = torch.nn.Parameter(torch.as_tensor([0.0] * num_bias_vars))
        self.register_parameter("log_std", self.log_std)

    def forward(self, x):
        out = torch.cat([x, self.log_std.unsqueeze(0).repeat([len(x), 1])], axis=1)
        return out


class FullyConnectedNetwork(nn.Module):
    """Generic fully connected network (rllib/models/torch/fcnet.py), policy head only."""

    def __init__(self, obs_dim=8, num_outputs=6, hiddens=(64, 64), free_log_std=True):
        super().__init__()
        self.free_log_std = free_log_std
        # Generate free-floating bias variables for the second half of the outputs.
        if self.free_log_std:
            assert num_outputs % 2 == 0
            num_outputs = num_outputs // 2
        layers = []
        prev_layer_size = int(np.prod((obs_dim,)))
        for size in hiddens:
            layers.append(SlimFC(prev_layer_size, size, activation_fn=nn.Tanh))
            prev_layer_size = size
        self._hidden_layers = nn.Sequential(*layers)
        self._logits = SlimFC(prev_layer_size, num_outputs, activation_fn=None)
        if self.free_log_std:
            self._append_free_log_std = AppendBiasLayer(num_outputs)

    def forward(self, obs):
        # input_dict["obs_flat"] of the exported policy model
        obs = obs.float()
        self._last_flat_in = obs.reshape(obs.shape[0], -1)
        self._features = self._hidden_layers(self._last_flat_in)
        logits = self._logits(self._features) if self._logits else self._features
        if self.free_log_std:
            logits = self._append_free_log_std(logits)
        return logits


def make_model():
    return FullyConnectedNetwork().eval()


def example_inputs():
    return (torch.randn(32, 8),)


def other_inputs():
    return [(torch.randn(1, 8),), (torch.randn(5, 8),)]


def probe_inputs():
    return other_inputs()
