"""torch-mlir's e2e test ElementwiseSigmoidIntModule applies `torch.sigmoid` to an int32 tensor (eager
promotes the result to float32). The ONNX form of the test, produced with torch.onnx.export for torch-mlir's
onnx e2e config, carries an onnx Sigmoid with integer input/output, which crashed torch-mlir's onnx import
(the PR fixes the crash, "but still experiences an error"); Sigmoid is only defined for float types, so
onnxruntime rejects such a graph as well.

Source: https://github.com/llvm/torch-mlir/pull/2914
"""
import torch

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"x": {0: "rows", 1: "cols"}}
BLIND = "operators-44"


class ElementwiseSigmoidIntModule(torch.nn.Module):

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.sigmoid(x)


def make_model():
    return ElementwiseSigmoidIntModule()


def example_inputs():
    return (torch.randint(1, 10, (3, 5), dtype=torch.int32),)


def other_inputs():
    return [(torch.randint(1, 10, (4, 7), dtype=torch.int32),),
            (torch.randint(-5, 10, (2, 3), dtype=torch.int32),)]


def probe_inputs():
    return other_inputs()
