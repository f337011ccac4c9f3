"""Model that maps points back through the inverse of a per-sample 3x3 transform with `torch.inverse`. The report:
"torch.inverse can't export onnx when opset_version == 16"; the maintainer answers that inverse is not an ONNX
operation (`aten::linalg_inv` has no symbolic in the TorchScript exporter and no torchlib function in the dynamo one).
The reporter shared no model, so the surrounding homogeneous-point code is a minimal use of the call.

Source: https://github.com/pytorch/pytorch/issues/149937
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"transform": {0: "batch"}, "points": {0: "batch", 1: "num_points"}}
BLIND = "operators-44"


class InverseWarpPoints(nn.Module):
    def forward(self, transform, points):
        inv = torch.inverse(transform)                                  # (B, 3, 3)
        ones = torch.ones_like(points[..., :1])
        homo = torch.cat([points, ones], dim=-1)                        # (B, N, 3)
        out = homo @ inv.transpose(1, 2)
        return out[..., :2] / out[..., 2:3]


def make_model():
    return InverseWarpPoints().eval()


def _inputs(b, n):
    transform = torch.eye(3).expand(b, 3, 3) + 0.1 * torch.randn(b, 3, 3)
    return (transform, torch.rand(b, n, 2))


def example_inputs():
    return _inputs(2, 16)


def other_inputs():
    return [_inputs(4, 25), _inputs(1, 7)]


def probe_inputs():
    return other_inputs()
