"""Prototype / cluster pooling that averages point features per assigned cluster with
`Tensor.scatter_reduce(..., reduce="mean", include_self=False)`. ONNX ScatterElements has no "mean" reduction,
and torchlib's aten::scatter_reduce maps "mean" to reduction "none" (include_self unused), so the dynamo export
runs but the exported model overwrites instead of averaging; the legacy exporter refuses mean.

Source: https://github.com/microsoft/onnxscript/pull/582
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "num_points"}}
BLIND = "operators-18"


class PrototypePooling(nn.Module):
    def __init__(self, channels=16, num_clusters=4):
        super().__init__()
        self.num_clusters = num_clusters
        self.assign = nn.Linear(channels, num_clusters)
        self.out = nn.Linear(channels, channels)

    def forward(self, x):
        # x: (N, C) point features; hard assignment of each point to one cluster
        assign = self.assign(x).argmax(dim=-1)
        index = assign.unsqueeze(-1).expand_as(x)
        protos = x.new_zeros(self.num_clusters, x.shape[1])
        protos = protos.scatter_reduce(0, index, x, reduce="mean", include_self=False)
        return self.out(protos)


def make_model():
    return PrototypePooling().eval()


def example_inputs():
    return (torch.randn(40, 16),)


def other_inputs():
    return [(torch.randn(57, 16),), (torch.randn(23, 16),)]


def probe_inputs():
    return other_inputs()
