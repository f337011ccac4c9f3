"""A plain `torch.nn.Bilinear(20, 30, 40)` layer mapping two feature vectors to a hidden state: the
TorchScript exporter has no symbolic for `aten::bilinear` ("Exporting the operator 'aten::bilinear' to ONNX
opset version 14 is not supported"), so a model with a bilinear layer cannot be exported.

Source: https://github.com/pytorch/pytorch/issues/71772
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"input1": {0: "batch"}, "input2": {0: "batch"}}
BLIND = "operators-12"


def make_model():
    m = torch.nn.Bilinear(20, 30, 40)
    return m.eval()


def example_inputs():
    input1 = torch.randn(128, 20)
    input2 = torch.randn(128, 30)
    return (input1, input2)


def other_inputs():
    return [
        (torch.randn(7, 20), torch.randn(7, 30)),
        (torch.randn(33, 20), torch.randn(33, 30)),
    ]


def probe_inputs():
    return other_inputs()
