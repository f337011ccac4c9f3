"""fairseq/DistilHuBERT `GradMultiply.apply(x, scale)`: a `torch.autograd.Function` whose forward is
`res = x.new(x)`; "ONNX export failed: Couldn't export Python operator GradMultiply".

Source: https://github.com/pytorch/pytorch/issues/73354
"""
import torch
from torch import nn

CLASS = "autograd-function"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch", 2: "time"}}


class GradMultiply(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.scale = scale
        res = x.new(x)
        return res

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.scale, None


class FeatureExtractor(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(1, 4, 3, stride=2)

    def forward(self, x):
        features = self.conv(x)
        return GradMultiply.apply(features, 0.1)


def make_model():
    return FeatureExtractor()


def example_inputs():
    return (torch.randn(2, 1, 16),)


def other_inputs():
    return [(torch.randn(3, 1, 25),), (torch.randn(1, 1, 9),)]


def probe_inputs():
    return other_inputs()
