"""Gaussian-process style layer factorising a covariance with `torch.linalg.cholesky`; "[ONNX] Support
aten::linalg_cholesky_ex".

Source: https://github.com/pytorch/pytorch/issues/103571
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}


class GP(nn.Module):
    def forward(self, x):
        cov = x @ x.transpose(-1, -2) + 0.5 * torch.eye(x.shape[-2])
        return torch.linalg.cholesky(cov)


def make_model():
    return GP()


def example_inputs():
    return (torch.randn(2, 4, 3),)


def other_inputs():
    return [(torch.randn(5, 4, 3),), (torch.randn(1, 4, 3),)]


def probe_inputs():
    return other_inputs()
