"""A policy whose only input is a dict of observations (Stable-Baselines3's MultiInputPolicy,
RLlib's batch dict): both exporters read a dict at the end of `args` as keyword arguments
("missing a required argument: 'observation'"); onnxfix passes it positionally (an empty dict
after it, as torch.onnx documents) and feeds onnxruntime the dict's tensors by the names
torch.onnx gives them (`observation_cam_0`: not forward's argument 0)."""

import torch
from torch import nn


class DictPolicy(nn.Module):
    def __init__(self):
        super().__init__()
        self.cam_0 = nn.Linear(2, 4)
        self.cam_1 = nn.Linear(3, 4)

    def forward(self, scale, observation):
        return torch.tanh(self.cam_0(observation["cam_0"]) + self.cam_1(observation["cam_1"])) * scale


def make_model():
    torch.manual_seed(0)
    return DictPolicy()


def example_inputs():
    return (torch.randn(1, 4), {"cam_0": torch.randn(1, 2), "cam_1": torch.randn(1, 3)})


def probe_inputs():
    return [(torch.randn(1, 4), {"cam_0": torch.randn(1, 2), "cam_1": torch.randn(1, 3)})]
