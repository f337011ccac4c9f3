"""torch-mlir's e2e `ElementwiseExpIntModule` applies `torch.exp` to an int32 tensor; PyTorch promotes
the result to float, but `torch.onnx.export` (TorchScript exporter) emits `onnx.Exp` straight on the
int32 input, so the model fails ONNX strict shape inference ("Exp ... has unsupported type:
tensor(int32)") and onnxruntime cannot load it.

Source: https://github.com/nod-ai/AMD-SHARK-ModelDev/issues/585
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"a": {0: "rows", 1: "cols"}}
BLIND = "operators-35"


class ElementwiseExpIntModule(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a):
        return torch.exp(a)


def make_model():
    return ElementwiseExpIntModule()


def example_inputs():
    return (torch.randint(-10, 10, (3, 4)).type(torch.int32),)


def other_inputs():
    return [
        (torch.randint(-10, 10, (5, 7)).type(torch.int32),),
        (torch.randint(-10, 10, (2, 3)).type(torch.int32),),
    ]


def probe_inputs():
    return other_inputs()
