"""An unstacked DeepONet binary classifier (calorimeter ring features) takes the dot product of the branch and
trunk MLP outputs with torch.linalg.vecdot; the author replaced it with `(a * b).sum(-1)` and the comment
"Exporting to onnx doesn't support torch.linalg.vecdot" (Lightning to_onnx; the TorchScript exporter has no
symbolic for aten::linalg_vecdot).

Source: https://github.com/lucasbanunes/boosted-lorenzetti/commit/a02f84932acd1bf9e8b78341a9d413e86ab7ed57
"""
from typing import List

import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"branch_input": {0: "batch"}, "trunk_input": {0: "batch"}}
BLIND = "operators-30"


def build_mlp(dims: List[int], activations: List[str | None]):
    model = nn.Sequential()
    iterator = zip(dims[:-1], dims[1:], activations)
    for input_dim, output_dim, activation in iterator:
        model.append(nn.Linear(input_dim, output_dim))
        if activation is not None:
            model.append(nn.ReLU())
    model.example_input_array = torch.randn(dims[0])
    return model


class UnstackedDeepONetBinaryClassifier(nn.Module):
    def __init__(self, branch_net: nn.Module, trunk_net: nn.Module):
        super().__init__()
        self.branch_net = branch_net
        self.trunk_net = trunk_net

    def forward(self, branch_input: torch.Tensor, trunk_input: torch.Tensor) -> torch.Tensor:
        return torch.linalg.vecdot(
            self.branch_net(branch_input),
            self.trunk_net(trunk_input)
        )


def make_model():
    return UnstackedDeepONetBinaryClassifier(
        branch_net=build_mlp([100, 32, 16], ["relu", None]),
        trunk_net=build_mlp([3, 16, 16], ["relu", None]),
    )


def example_inputs():
    return (torch.randn(4, 100), torch.randn(4, 3))


def other_inputs():
    return [(torch.randn(7, 100), torch.randn(7, 3)), (torch.randn(1, 100), torch.randn(1, 3))]


def probe_inputs():
    return other_inputs()
