"""Bit-level layer that reinterprets float32 tensors as int32 with `x.view(torch.int32)`, combines
the bit patterns with `(~x | y)` and views the result back to the original float dtype; export fails
with "We don't have an op for aten::view but it isn't a special case" (the dtype overload of view).

Source: https://github.com/pytorch/pytorch/issues/116443
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "length"}, "y": {0: "length"}}
BLIND = "operators-15"


class Foo(nn.Module):
    def forward(self, x, y):
        ori_dtype = y.dtype
        x = x.view(torch.int32)
        y = y.view(torch.int32)
        rst = (~x | y)
        rst = rst.view(ori_dtype)
        return rst


def make_model():
    return Foo()


def example_inputs():
    return (torch.randn(10), torch.randn(10))


def other_inputs():
    return [(torch.randn(17), torch.randn(17)), (torch.randn(4), torch.randn(4))]


def probe_inputs():
    return other_inputs()
