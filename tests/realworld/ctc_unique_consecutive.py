"""Greedy CTC decoder: `indices = torch.argmax(emission, dim=-1)`, `torch.unique_consecutive(indices, dim=-1)`,
then blanks dropped; the dynamo export hit DynamicOutputShapeException.

Source: https://github.com/microsoft/onnxscript/pull/1547
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"emission": {0: "seq"}}


class GreedyCTCDecoder(nn.Module):
    def __init__(self, blank=0):
        super().__init__()
        self.blank = blank

    def forward(self, emission):
        indices = torch.argmax(emission, dim=-1)
        indices = torch.unique_consecutive(indices, dim=-1)
        return indices[indices != self.blank]


def make_model():
    return GreedyCTCDecoder()


def example_inputs():
    return (torch.randn(12, 5),)


def other_inputs():
    return [(torch.randn(20, 5),), (torch.randn(7, 5),)]


def probe_inputs():
    return other_inputs()
