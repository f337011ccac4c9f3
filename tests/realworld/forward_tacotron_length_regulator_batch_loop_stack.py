"""ForwardTacotron's LengthRegulator: loops `for i in range(x.size(0))`, expands each item with
`torch.repeat_interleave(x[i], (dur[i] + 0.5).long(), dim=0)` and stacks the list in a
`@torch.jit.script_if_tracing` helper; the export "converts OK" but onnxruntime then fails in the
ConcatFromSequence node ("Non concat axis dimensions must match") on inputs of another length.

Source: https://github.com/pytorch/pytorch/issues/79483
"""
from typing import List

import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 1: "chars"}, "dur": {0: "batch", 1: "chars"}}
BLIND = "domains-13"


class LengthRegulator(nn.Module):

    def __init__(self):
        super().__init__()

    @staticmethod
    @torch.jit.script_if_tracing
    def onnx_helper(x_expanded: List[torch.Tensor]):
        temp_tensor = torch.stack(x_expanded)
        return temp_tensor

    def forward(self, x: torch.Tensor, dur: torch.Tensor) -> torch.Tensor:
        dur[dur < 0] = 0.
        x_expanded = []
        for i in range(x.size(0)):
            x_exp = torch.repeat_interleave(x[i], (dur[i] + 0.5).long(), dim=0)
            x_expanded.append(x_exp)

        output = self.onnx_helper(x_expanded)
        return output


class Tacotron(nn.Module):
    def __init__(self, n_chars=30, dim=16):
        super().__init__()
        self.prenet = nn.Linear(dim, dim)
        self.lr = LengthRegulator()
        self.postnet = nn.Linear(dim, 8)

    def forward(self, x, dur):
        x = torch.tanh(self.prenet(x))
        x = self.lr(x, dur)
        return self.postnet(x)


def _inputs(batch, chars, seed):
    g = torch.Generator().manual_seed(seed)
    # the same multiset of durations in every row, so that every item expands to the same length
    base = torch.rand(chars, generator=g) * 4.0 - 0.5
    dur = torch.stack([base[torch.randperm(chars, generator=g)] for _ in range(batch)])
    return (torch.randn(batch, chars, 16, generator=g), dur)


def make_model():
    return Tacotron()


def example_inputs():
    return _inputs(2, 10, 0)


def other_inputs():
    return [_inputs(3, 14, 1), _inputs(1, 7, 2)]


def probe_inputs():
    return other_inputs()
