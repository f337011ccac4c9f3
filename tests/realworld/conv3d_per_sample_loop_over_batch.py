"""3D volume model that runs its Conv3d sample by sample: `for i in range(x.size(0)):
outputs.append(self.conv(x[i].unsqueeze(0)))`, then `torch.stack(outputs, 0).squeeze()`; the user wants the loop
to follow the input's batch size, and the ONNX export of the (scripted) model fails.

Source: https://github.com/pytorch/pytorch/issues/80756
"""
from typing import List

import torch
from torch import nn, jit

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "domains-11"


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(1, 1, 3, 1, 1)

    def forward(self, x):
        outputs = jit.annotate(List[torch.Tensor], [])
        for i in range(x.size(0)):
            outputs.append(self.conv(x[i].unsqueeze(0)))
        return torch.stack(outputs, 0).squeeze()


def make_model():
    return Model()


def example_inputs():
    return (torch.rand((3, 1, 5, 5, 5)),)


def other_inputs():
    return [(torch.rand((5, 1, 5, 5, 5)),), (torch.rand((2, 1, 5, 5, 5)),)]


def probe_inputs():
    return other_inputs()
