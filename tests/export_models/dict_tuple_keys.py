"""A depth decoder returning a dict keyed by ("disp", scale) tuples (Monodepth2, onnx/onnx#4989):
the legacy tracer flattens the keys' ints into outputs and fails ("output 1 (3 ...) of traced
region did not have observable data dependence"). The repair exports the output's tensors, in
the order eager is compared in."""

import torch
from torch import nn


class DepthDecoder(nn.Module):
    def __init__(self, scales=(0, 1)):
        super().__init__()
        self.scales = scales
        self.convs = nn.ModuleDict({str(s): nn.Conv2d(3, 1, 3, padding=1) for s in scales})

    def forward(self, x):
        outputs = {}
        for s in self.scales:
            outputs[("disp", s)] = torch.sigmoid(self.convs[str(s)](x))
            x = nn.functional.avg_pool2d(x, 2)
        return outputs


def make_model():
    torch.manual_seed(0)
    return DepthDecoder()


def example_inputs():
    return (torch.randn(2, 3, 16, 12),)
