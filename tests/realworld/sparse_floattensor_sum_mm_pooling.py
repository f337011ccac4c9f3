"""CNN whose pooling stage is a sparse matrix built with `torch.sparse.FloatTensor(indices, values,
size)` and applied with `torch.sparse.mm`, normalised by `torch.sparse.sum` (the report's model
"largely relies on torch.sparse.FloatTensor ... torch.sparse.sum and torch.sparse.mm"); ONNX export
fails because sparse_coo_tensor / sparse ops have no ONNX export.

Source: https://github.com/pytorch/pytorch/issues/71786
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}, "indices": {1: "nnz"}, "values": {0: "nnz"}}
BLIND = "operators-5"

H = W = 8
P = 6


class SparsePoolCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x, indices, values):
        feat = torch.relu(self.conv(x))                      # B, C, H, W
        feat = feat.flatten(2).permute(2, 0, 1).reshape(H * W, -1)   # HW, B*C
        S = torch.sparse.FloatTensor(indices, values, torch.Size([P, H * W]))
        pooled = torch.sparse.mm(S, feat)                     # P, B*C
        norm = torch.sparse.sum(S, dim=1).to_dense().unsqueeze(1)
        return pooled / (norm + 1e-6)


def make_model():
    return SparsePoolCNN()


def _inputs(b, nnz):
    rows = torch.arange(nnz) % P
    cols = torch.randint(0, H * W, (nnz,))
    return (torch.randn(b, 3, H, W), torch.stack([rows, cols]), torch.rand(nnz))


def example_inputs():
    return _inputs(2, 20)


def other_inputs():
    return [_inputs(3, 32), _inputs(1, 9)]


def probe_inputs():
    return other_inputs()
