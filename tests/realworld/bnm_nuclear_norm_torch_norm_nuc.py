"""Classifier head that also reports the batch nuclear-norm of its softmax predictions
(`torch.norm(softmax_out, 'nuc')`, as in batch nuclear-norm maximization). `torch.norm` now dispatches
to `linalg.vector_norm` / `linalg.matrix_norm`, and the ONNX export of that new dispatch is asked for
in the report; the nuclear-norm (`ord='nuc'`) path has no ONNX lowering.

Source: https://github.com/pytorch/pytorch/issues/83661
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-7"


class BNMHead(nn.Module):
    def __init__(self, in_dim=64, num_classes=10):
        super().__init__()
        self.bottleneck = nn.Sequential(nn.Linear(in_dim, 32), nn.ReLU())
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x):
        logits = self.fc(self.bottleneck(x))
        softmax_out = nn.Softmax(dim=1)(logits)
        bnm = torch.norm(softmax_out, 'nuc') / softmax_out.shape[0]
        return softmax_out, bnm


def make_model():
    return BNMHead()


def example_inputs():
    return (torch.randn(8, 64),)


def other_inputs():
    return [(torch.randn(13, 64),), (torch.randn(3, 64),)]


def probe_inputs():
    return other_inputs()
