"""burn's ONNX test-model generator for BitwiseNot: a module returning `torch.bitwise_not(x)` on an int32
tensor. torch.onnx.export fails with "ONNX export does NOT support exporting bitwise Not for non-boolean
input values" (the reporter notes bit shift and bitwise and exported, bitwise not did not, at opset 18).

Source: https://github.com/tracel-ai/burn/issues/1714
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "length"}}
BLIND = "operators-10"


class BitwiseNotModel(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.bitwise_not(x)


def make_model():
    return BitwiseNotModel()


def example_inputs():
    return (torch.tensor([[1, 2, 3, 4]], dtype=torch.int32),)


def other_inputs():
    return [(torch.randint(-100, 100, (3, 7), dtype=torch.int32),),
            (torch.randint(-100, 100, (2, 2), dtype=torch.int32),)]


def probe_inputs():
    return other_inputs()
