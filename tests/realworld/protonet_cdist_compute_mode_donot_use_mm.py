"""Prototypical-network style classifier: query embeddings are compared to learned class prototypes with
`torch.cdist(..., p=2.0, compute_mode="donot_use_mm_for_euclid_dist")` (exact Euclidean distance, no matmul
trick); the report says the ONNX export ignores `compute_mode` and emits a different computation (slow, OOM on
large inputs) than torch.cdist.

Source: https://github.com/pytorch/pytorch/issues/144212
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"queries": {0: "batch", 1: "num_queries"}}
BLIND = "operators-8"


class ProtoNetHead(nn.Module):
    def __init__(self, in_dim=32, emb_dim=16, num_classes=10):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(in_dim, 64), nn.ReLU(), nn.Linear(64, emb_dim))
        self.prototypes = nn.Parameter(torch.randn(num_classes, emb_dim))

    def forward(self, queries):
        emb = self.encoder(queries)                                   # (B, Q, D)
        protos = self.prototypes.unsqueeze(0).expand(emb.shape[0], -1, -1)  # (B, C, D)
        dists = torch.cdist(emb, protos, p=2.0, compute_mode="donot_use_mm_for_euclid_dist")
        return torch.softmax(-dists, dim=-1)


def make_model():
    return ProtoNetHead()


def example_inputs():
    return (torch.randn(2, 12, 32),)


def other_inputs():
    return [(torch.randn(3, 7, 32),), (torch.randn(1, 20, 32),)]


def probe_inputs():
    return other_inputs()
