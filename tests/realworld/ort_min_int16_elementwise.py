"""Element-wise minimum of two int16 tensors (ONNX `Min`, as in the ONNX backend node test `test_min_int16`):
the model exports, but onnxruntime's CPU provider has no Min kernel for int8/int16/uint8/uint16, so the
session fails with "NOT_IMPLEMENTED : Could not find an implementation for Min(13) node".

Source: https://github.com/microsoft/onnxruntime/issues/15845
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"data_0": {0: "n"}, "data_1": {0: "n"}}
BLIND = "operators-12"


class MinInt16(nn.Module):
    def forward(self, data_0, data_1):
        return torch.minimum(data_0, data_1)


def make_model():
    return MinInt16().eval()


def example_inputs():
    data_0 = torch.tensor([3, 2, 1], dtype=torch.int16)
    data_1 = torch.tensor([1, 4, 4], dtype=torch.int16)
    return (data_0, data_1)


def other_inputs():
    return [
        (torch.randint(-300, 300, (7,), dtype=torch.int16), torch.randint(-300, 300, (7,), dtype=torch.int16)),
        (torch.randint(-300, 300, (12,), dtype=torch.int16), torch.randint(-300, 300, (12,), dtype=torch.int16)),
    ]


def probe_inputs():
    return other_inputs()
