"""torch-mlir's e2e `ElementwiseAtan2TensorIntModule` takes `torch.atan2` of an int32 and an int64 tensor
(PyTorch promotes both to float32). Routed through `torch.onnx.export`, the test is listed under
"Failure - incorrect numerics": the TorchScript exporter builds its atan2 subgraph on the integer inputs
without promoting them to float, and on torch 2.13 onnxruntime rejects the graph (int64 fed to a
float-only op).

Source: https://github.com/nod-ai/AMD-SHARK-ModelDev/issues/549
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"a": {0: "n"}, "b": {0: "n"}}
BLIND = "operators-35"


class ElementwiseAtan2TensorIntModule(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.atan2(a, b)


def make_model():
    return ElementwiseAtan2TensorIntModule()


def example_inputs():
    return (torch.randint(1, 10, (4,)).type(torch.int32), torch.randint(1, 10, (4,)))


def other_inputs():
    return [
        (torch.randint(-9, 10, (7,)).type(torch.int32), torch.randint(-9, 10, (7,))),
        (torch.randint(1, 10, (2,)).type(torch.int32), torch.randint(1, 10, (2,))),
    ]


def probe_inputs():
    return other_inputs()
