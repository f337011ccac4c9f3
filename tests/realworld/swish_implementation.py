"""EfficientDet's `MemoryEfficientSwish` calls `SwishImplementation.apply(x)` (a `torch.autograd.Function` with
`ctx.save_for_backward`); "Couldn't export Python operator SwishImplementation".

Source: https://github.com/pytorch/pytorch/issues/56458
"""
import torch
from torch import nn

CLASS = "autograd-function"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch", 2: "h", 3: "w"}}


class SwishImplementation(torch.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        result = i * torch.sigmoid(i)
        ctx.save_for_backward(i)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        i = ctx.saved_tensors[0]
        sigmoid_i = torch.sigmoid(i)
        return grad_output * (sigmoid_i * (1 + i * (1 - sigmoid_i)))


class MemoryEfficientSwish(nn.Module):
    def forward(self, x):
        return SwishImplementation.apply(x)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.swish = MemoryEfficientSwish()

    def forward(self, x):
        return self.swish(self.conv(x))


def make_model():
    return Block()


def example_inputs():
    return (torch.randn(1, 3, 8, 8),)


def other_inputs():
    return [(torch.randn(2, 3, 10, 6),), (torch.randn(1, 3, 5, 5),)]


def probe_inputs():
    return other_inputs()
