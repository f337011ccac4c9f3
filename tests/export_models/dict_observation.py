"""A policy whose only input is a dict of observations (Stable-Baselines3's MultiInputPolicy,
RLlib's batch dict): both exporters read a dict at the end of `args` as keyword arguments
("missing a required argument: 'observation'"); onnxfix passes it positionally (an empty dict
after it, as torch.onnx documents) and feeds onnxruntime the dict's tensors in order."""

import torch
from torch import nn


class DictPolicy(nn.Module):
    def __init__(self):
        super().__init__()
        self.position = nn.Linear(2, 4)
        self.velocity = nn.Linear(3, 4)

    def forward(self, observation):
        return torch.tanh(self.position(observation["position"]) + self.velocity(observation["velocity"]))


def make_model():
    torch.manual_seed(0)
    return DictPolicy()


def example_inputs():
    return ({"position": torch.randn(1, 2), "velocity": torch.randn(1, 3)},)


def probe_inputs():
    return [({"position": torch.randn(1, 2), "velocity": torch.randn(1, 3)},)]
