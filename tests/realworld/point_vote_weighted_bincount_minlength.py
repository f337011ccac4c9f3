"""Scene-level classifier head that turns per-point predictions into a confidence-weighted class vote with
`torch.bincount(labels, weights=conf, minlength=num_classes)`. The torchlib PR that added an `aten::bincount`
lowering (ScatterElements add of ones) "explicitly rejects weighted bincount (weights != None)", so the dynamo
exporter still fails on the weighted call; the TorchScript exporter has no `aten::bincount` symbolic at all.

Source: https://github.com/microsoft/onnxscript/pull/2921
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"feats": {0: "num_points"}}
BLIND = "operators-44"


class PointVoteHead(nn.Module):
    def __init__(self, in_dim=16, num_classes=5):
        super().__init__()
        self.num_classes = num_classes
        self.cls = nn.Linear(in_dim, num_classes)

    def forward(self, feats):
        probs = self.cls(feats).softmax(dim=-1)          # (N, C)
        conf, labels = probs.max(dim=-1)                 # (N,), (N,)
        votes = torch.bincount(labels, weights=conf, minlength=self.num_classes)
        return votes / votes.sum()


def make_model():
    return PointVoteHead().eval()


def example_inputs():
    return (torch.randn(40, 16),)


def other_inputs():
    return [(torch.randn(73, 16),), (torch.randn(9, 16),)]


def probe_inputs():
    return other_inputs()
