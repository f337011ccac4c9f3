"""A k-NN classifier head counts its neighbours' labels (an int64 vote tensor) and returns the top
classes with torch.topk. The report (linked from onnxscript's torchlib test data, where `topk` is
marked xfail for torch.int64/int32 inputs: "fixme: result mismatch") is that topk on integer tensors
exports but the ONNX model's results do not match PyTorch's.

Source: https://github.com/microsoft/onnxscript/issues/853
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"feats": {0: "batch"}}
BLIND = "operators-17"


class KNNVoteHead(nn.Module):
    def __init__(self, dim=16, bank_size=64, num_classes=10, k=7, topk=3):
        super().__init__()
        self.register_buffer("bank_feats", F.normalize(torch.randn(bank_size, dim), dim=1))
        self.register_buffer("bank_labels", torch.randint(0, num_classes, (bank_size,)))
        self.num_classes = num_classes
        self.k = k
        self.topk = topk

    def forward(self, feats):
        feats = F.normalize(feats, dim=1)
        sim = feats @ self.bank_feats.t()
        nn_idx = sim.topk(self.k, dim=1).indices
        nn_labels = self.bank_labels[nn_idx]
        votes = F.one_hot(nn_labels, self.num_classes).sum(dim=1)  # int64 counts
        top_votes, top_classes = torch.topk(votes, self.topk, dim=1)
        return top_votes, top_classes


def make_model():
    return KNNVoteHead().eval()


def example_inputs():
    return (torch.randn(4, 16),)


def other_inputs():
    return [(torch.randn(9, 16),), (torch.randn(2, 16),)]


def probe_inputs():
    return other_inputs()
