"""Megatron-style activation checkpointing: `CheckpointFunction.apply(function, *args)`, a
`torch.autograd.Function` whose forward just calls the function; "Couldn't export Python operator CheckpointFunction".

Source: https://github.com/pytorch/pytorch/issues/61813
"""
import torch
from torch import nn

CLASS = "autograd-function"
FAMILY = "tensor_data"
DYNAMIC = {"input": {0: "batch"}}


class CheckpointFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, run_function, *args):
        return run_function(*args)


def checkpoint(function, *args):
    return CheckpointFunction.apply(function, *args)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, input):
        def custom_forward(*inputs):
            return self.lin(inputs[0]).relu()
        return checkpoint(custom_forward, input)


def make_model():
    return Net()


def example_inputs():
    return (torch.randn(2, 4),)


def other_inputs():
    return [(torch.randn(5, 4),), (torch.randn(1, 4),)]


def probe_inputs():
    return other_inputs()
