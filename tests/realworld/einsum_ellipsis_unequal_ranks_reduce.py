"""`torch.einsum("...ik, ...j -> ij", a, b)` where the ellipsis covers a leading dim in the first operand
and no dim in the second (PyTorch broadcasts the ellipses and sums them away). The exported ONNX `Einsum`
keeps the equation, and ONNX shape inference rejects it ("Ellipsis represents incompatible dimensions"),
so the model cannot be loaded; torchlib's own einsum test xfails this sample.

Source: https://github.com/onnx/onnx/issues/5739
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"input_1_0": {1: "rows"}, "input_1_1": {0: "cols"}}
BLIND = "operators-31"


class EinsumEllipsis(nn.Module):
    def forward(self, input_1_0, input_1_1):
        # sum over the leading (ellipsis) dims and k, outer product with the vector
        return torch.einsum("...ik, ...j -> ij", input_1_0, input_1_1)


def make_model():
    return EinsumEllipsis().eval()


def example_inputs():
    # shapes from the report: [1, 2, 3] and [3]
    return (torch.randn(1, 2, 3), torch.randn(3))


def other_inputs():
    return [
        (torch.randn(1, 5, 3), torch.randn(7)),
        (torch.randn(1, 4, 3), torch.randn(2)),
    ]


def probe_inputs():
    return other_inputs()
