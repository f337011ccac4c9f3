"""Export tutorial "control flow": `if x.sum() > 0: return self.mlp(x)` else the negated path; the dynamo
export needs `torch.cond`, the legacy trace keeps one branch.

Source: https://github.com/pytorch/tutorials/pull/3223
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch"}}


class ForwardWithControlFlow(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 1))

    def forward(self, x):
        if x.sum() > 0:
            return self.mlp(x)
        return -self.mlp(x)


def make_model():
    return ForwardWithControlFlow()


def example_inputs():
    return (torch.rand(2, 3),)


def other_inputs():
    return [(-torch.rand(4, 3),), (torch.rand(1, 3),)]


def probe_inputs():
    return other_inputs()
