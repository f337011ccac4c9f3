"""Camera model inverting a batch of 3x3 intrinsic matrices: `torch.linalg.inv(new_intrinsic_matrix)`;
"Exporting the operator 'aten::linalg_inv' to ONNX opset version 18 is not supported".

Source: https://github.com/pytorch/pytorch/issues/107948
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"points": {0: "batch"}, "intrinsics": {0: "batch"}}


class Unproject(nn.Module):
    def forward(self, points, intrinsics):
        inv = torch.linalg.inv(intrinsics)
        return points @ inv.transpose(-1, -2)


def _k(b):
    k = torch.eye(3).repeat(b, 1, 1)
    k[:, 0, 0] = torch.rand(b) * 100 + 50
    k[:, 1, 1] = torch.rand(b) * 100 + 50
    k[:, :2, 2] = torch.rand(b, 2) * 30
    return k


def make_model():
    return Unproject()


def example_inputs():
    return (torch.rand(2, 5, 3), _k(2))


def other_inputs():
    return [(torch.rand(3, 5, 3), _k(3)), (torch.rand(1, 5, 3), _k(1))]


def probe_inputs():
    return other_inputs()
