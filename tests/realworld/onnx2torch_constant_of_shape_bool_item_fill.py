"""onnx2torch (ONNX -> PyTorch converter) `OnnxConstantOfShape`, the module an ONNX ConstantOfShape node becomes:
`torch.full(size=torch.Size(shape), fill_value=self.value.item(), dtype=self.value.dtype, ...)`. With a boolean
`value` attribute (the PR's test: shape [3, 3], value [True]) `.item()` gives a Python bool, and exporting the
converted model back to ONNX fails (the fix passes `int(fill_value)` when `fill_value` is a bool).

Source: https://github.com/ENOT-AutoDL/onnx2torch/pull/176
"""
import numpy as np
import torch
from torch import nn

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {}  # the PR's test exports the converted node with a fixed shape input [3, 3]
BLIND = "domains-21"


class OnnxConstantOfShape(nn.Module):  # pylint: disable=missing-class-docstring
    def __init__(self, value=None):
        super().__init__()

        if value is None:
            value = torch.tensor(0.0, dtype=torch.float32)

        if value.numel() != 1:
            raise ValueError('parameter "value" must be scalar')

        self.value: torch.Tensor
        self.register_buffer('value', value)

    def forward(self, shape: torch.Tensor) -> torch.Tensor:  # pylint: disable=missing-function-docstring
        return torch.full(
            size=torch.Size(shape),
            fill_value=self.value.item(),
            dtype=self.value.dtype,
            device=self.value.device,
        )


def make_model():
    # numpy_helper.to_array(node.attribute 'value') -> torch.from_numpy, as onnx2torch does for the attribute
    return OnnxConstantOfShape(value=torch.from_numpy(np.asarray([True]))).eval()


def example_inputs():
    return (torch.tensor([3, 3]),)


def other_inputs():
    return [(torch.tensor([3, 3]),), (torch.tensor([3, 3]),)]


def probe_inputs():
    return other_inputs()
