"""DSNT coordinate-regression (pose / keypoint) head: dsntnn's `normalized_linspace(length)` builds
`torch.linspace(first, last, length, ...)` from the heatmap sizes (`first = -(length - 1) / length`)
in `soft_argmax`; tracing / ONNX export warns "Converting a tensor to a Python integer" on that line
and the exported model cannot be used with other input sizes.

Source: https://github.com/anibali/dsntnn/issues/9
"""
from functools import reduce
from operator import mul

import torch
import torch.nn.functional
from torch import nn

CLASS = "constant-tensor"
FAMILY = "shape_math"
DYNAMIC = {"images": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-12"


# --- dsntnn/__init__.py (v0.5, the lines the model uses) ---
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


def soft_argmax(heatmaps):
    values = [normalized_linspace(d, dtype=heatmaps.dtype, device=heatmaps.device)
              for d in heatmaps.size()[2:]]
    return linear_expectation(heatmaps, values).flip(-1)


def dsnt(heatmaps):
    return soft_argmax(heatmaps)


def flat_softmax(inp):
    orig_size = inp.size()
    flat = inp.view(-1, reduce(mul, orig_size[2:]))
    flat = torch.nn.functional.softmax(flat, -1)
    return flat.view(*orig_size)


# --- the user's model (dsntnn's basic usage example) ---
class FCN(nn.Module):
    def __init__(self):
        super().__init__()

        self.layers = nn.Sequential(
            nn.Conv2d(3, 16, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.BatchNorm2d(16),
            nn.Conv2d(16, 16, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.BatchNorm2d(16),
            nn.Conv2d(16, 16, kernel_size=3, padding=1),
        )

    def forward(self, x):
        return self.layers(x)


class CoordRegressionNetwork(nn.Module):
    def __init__(self, n_locations):
        super().__init__()
        self.fcn = FCN()
        self.hm_conv = nn.Conv2d(16, n_locations, kernel_size=1, bias=False)

    def forward(self, images):
        # 1. Run the images through our FCN
        fcn_out = self.fcn(images)
        # 2. Use a 1x1 conv to get one unnormalized heatmap per location
        unnormalized_heatmaps = self.hm_conv(fcn_out)
        # 3. Normalize the heatmaps
        heatmaps = flat_softmax(unnormalized_heatmaps)
        # 4. Calculate the coordinates
        coords = dsnt(heatmaps)

        return coords, heatmaps


def make_model():
    return CoordRegressionNetwork(n_locations=2).eval()


def example_inputs():
    return (torch.randn(5, 3, 40, 40),)


def other_inputs():
    return [(torch.randn(2, 3, 48, 32),), (torch.randn(3, 3, 24, 56),)]


def probe_inputs():
    return other_inputs()
