"""Glow-style invertible 1x1 convolution (normalizing flow): the layer returns the transformed
activations and the log-determinant term `h * w * torch.slogdet(self.weight)[1]`; the dynamo exporter
has no torchlib function for `aten._linalg_slogdet` (and the TorchScript exporter has no symbolic for
`linalg_slogdet`).

Source: https://github.com/microsoft/onnxscript/issues/1651
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-6"


class InvConv2d(nn.Module):
    def __init__(self, in_channel):
        super().__init__()
        weight = torch.randn(in_channel, in_channel)
        q, _ = torch.linalg.qr(weight)
        self.weight = nn.Parameter(q.unsqueeze(2).unsqueeze(3))

    def forward(self, x):
        _, _, height, width = x.shape
        out = F.conv2d(x, self.weight)
        logdet = height * width * torch.slogdet(self.weight.squeeze().double())[1].float()
        return out, logdet.expand(x.shape[0])


def make_model():
    return InvConv2d(8)


def example_inputs():
    return (torch.randn(2, 8, 16, 16),)


def other_inputs():
    return [(torch.randn(3, 8, 12, 20),), (torch.randn(1, 8, 7, 9),)]


def probe_inputs():
    return other_inputs()
