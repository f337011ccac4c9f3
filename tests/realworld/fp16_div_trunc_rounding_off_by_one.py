"""float16 `torch.div(input, other, rounding_mode="trunc")` (here: half-precision point coordinates divided by
the grid cell size to get cell indices). PyTorch rounds the float16 quotient before truncating; the exported
graph divides with a wider intermediate and truncates that, so quotients that sit at a float16 rounding
boundary come out one lower ("trunc_div float16 off-by-one mismatches"; torchlib xfails the float16 sample).

Source: https://github.com/microsoft/onnxscript/issues/990
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"input": {0: "batch", 1: "points"}, "other": {0: "batch", 1: "points"}}
BLIND = "operators-31"


class HalfGridCellIndex(nn.Module):
    def forward(self, input, other):
        # cell index of each (x, y) point on a grid of cell size `other`, all in float16
        return torch.div(input, other, rounding_mode="trunc")


def make_model():
    return HalfGridCellIndex().eval()


def _points(b, n, cell):
    # points on grid corners: integer index * cell size, stored as float16 (as a half-precision model would)
    idx = torch.randint(0, 64, (b, n, 2)).float()
    coords = (idx * cell).to(torch.float16)
    other = torch.full((b, n, 2), cell, dtype=torch.float16)
    return (coords, other)


def example_inputs():
    return _points(2, 40, 0.3)


def other_inputs():
    return [_points(3, 64, 0.7), _points(1, 25, 0.3)]


def probe_inputs():
    return other_inputs()
