"""A module returns `torch.arange(end=x.shape[0], dtype=torch.float16)` with a dynamic first dim; the report
says the legacy export writes a Range node on float16 inputs, which onnxruntime rejects when loading
("Type Error: Type 'tensor(float16)' of input parameter ... of operator (Range) ... is invalid"), while
building the arange in the default dtype and casting afterwards works.

Source: https://github.com/pytorch/pytorch/issues/148041
"""
import torch

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-44"


class Test(torch.nn.Module):
    def forward(self, x):
        return torch.arange(end=x.shape[0], dtype=torch.float16)


def make_model():
    return Test()


def example_inputs():
    return (torch.randn(1),)


def other_inputs():
    return [(torch.randn(7),), (torch.randn(3),)]


def probe_inputs():
    return other_inputs()
