"""MobilePose CoordRegressionNetwork: heatmaps -> dsntnn.flat_softmax -> dsntnn.dsnt, whose
normalized_linspace builds `torch.linspace(first, last, length)` from the heatmap sizes; the export
warns "Converting a tensor to a Python integer" at that line and the coordinate grid is fixed.

Source: https://github.com/pytorch/pytorch/issues/31941
"""
from functools import reduce
from operator import mul

import torch
import torch.nn.functional
from torch import nn

CLASS = "constant-tensor"
FAMILY = "shape_math"
DYNAMIC = {"images": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-10"


def linear_expectation(probs, values):
    assert(len(values) == probs.ndimension() - 2)
    expectation = []
    for i in range(2, probs.ndimension()):
        # Marginalise probabilities
        marg = probs
        for j in range(probs.ndimension() - 1, 1, -1):
            if i != j:
                marg = marg.sum(j, keepdim=False)
        # Calculate expectation along axis `i`
        expectation.append((marg * values[len(expectation)]).sum(-1, keepdim=False))
    return torch.stack(expectation, -1)


def normalized_linspace(length, dtype=None, device=None):
    first = -(length - 1) / length
    last = (length - 1) / length
    return torch.linspace(first, last, length, dtype=dtype, device=device)


def soft_argmax(heatmaps, normalized_coordinates=True):
    if normalized_coordinates:
        values = [normalized_linspace(d, dtype=heatmaps.dtype, device=heatmaps.device)
                  for d in heatmaps.size()[2:]]
    else:
        values = [torch.arange(0, d, dtype=heatmaps.dtype, device=heatmaps.device)
                  for d in heatmaps.size()[2:]]
    return linear_expectation(heatmaps, values).flip(-1)


def dsnt(heatmaps, **kwargs):
    return soft_argmax(heatmaps, **kwargs)


def flat_softmax(inp):
    orig_size = inp.size()
    flat = inp.view(-1, reduce(mul, orig_size[2:]))
    flat = torch.nn.functional.softmax(flat, -1)
    return flat.view(*orig_size)


class CoordRegressionNetwork(nn.Module):
    def __init__(self, n_locations=16):
        super(CoordRegressionNetwork, self).__init__()
        self.resnet = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
        )
        self.outsize = 32
        self.hm_conv = nn.Conv2d(self.outsize, n_locations, kernel_size=1, bias=False)

    def forward(self, images):
        # 1. Run the images through our Resnet
        resnet_out = self.resnet(images)
        # 2. Use a 1x1 conv to get one unnormalized heatmap per location
        unnormalized_heatmaps = self.hm_conv(resnet_out)
        # 3. Normalize the heatmaps
        heatmaps = flat_softmax(unnormalized_heatmaps)
        # 4. Calculate the coordinates
        coords = dsnt(heatmaps)

        return coords, heatmaps


def make_model():
    return CoordRegressionNetwork()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(3, 3, 96, 48),), (torch.randn(1, 3, 40, 80),)]


def probe_inputs():
    return other_inputs()
