"""pnnx python-API report: a small model calls a `@torch.jit.script` helper `_abs` whose body branches on a
tensor value (`if x.sum() > 0: return x else: return -x`) before a Linear layer; `pnnx.export` emits broken
libtorch-style code for the scripted branch. torch.export (dynamo=True) cannot guard on the value of `x.sum() > 0`.

Source: https://github.com/pnnx/pnnx/issues/166
"""
import torch
import torch.nn as nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch"}, "h": {0: "batch"}}
BLIND = "domains-67"


class TestModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 2)
        self.relu = torch.nn.ReLU()

    @torch.jit.script
    def _abs(x):
        if x.sum() > 0:
            return x
        else:
            return -x

    # input: x-(batch, 4), h-(batch, 2)
    # output: x1-(batch, 2), x2-(batch, 2)
    def forward(self, x, h):
        x = self._abs(x)
        x = self.linear(x)
        x1 = x + h
        x2 = self.relu(x1)
        return x1, x2


def make_model():
    return TestModel().eval()


def example_inputs():
    return (torch.randn([1, 4]).abs(), torch.randn([1, 2]))


def other_inputs():
    return [
        (-torch.randn([3, 4]).abs(), torch.randn([3, 2])),
        (torch.randn([2, 4]).abs(), torch.randn([2, 2])),
    ]


def probe_inputs():
    return other_inputs()
