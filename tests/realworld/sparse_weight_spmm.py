"""A pruned layer that keeps its weight as a sparse COO tensor and computes
`x = torch.sparse.mm(self.weight, x)` (a conv-like layer over im2col columns); the report asks for
sparse-tensor support because torch.onnx.export fails on this forward.

Source: https://github.com/pytorch/pytorch/issues/97652
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "length"}}
BLIND = "operators-3"


class SparseConv1d(nn.Module):
    def __init__(self, in_channels=8, out_channels=16, kernel_size=3, density=0.3):
        super().__init__()
        self.kernel_size = kernel_size
        dense = torch.randn(out_channels, in_channels * kernel_size)
        dense = dense * (torch.rand_like(dense) < density)
        # self.weight is sparsed with coo format
        self.register_buffer("weight", dense.to_sparse())

    def forward(self, x):
        # x: (B, C, L) -> columns (C*k, B*L')
        cols = nn.functional.unfold(x.unsqueeze(-1), (self.kernel_size, 1), padding=(1, 0))
        b, ck, l = cols.shape
        cols = cols.permute(1, 0, 2).reshape(ck, b * l)
        x = torch.sparse.mm(self.weight, cols)
        return x.reshape(-1, b, l).permute(1, 0, 2)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = SparseConv1d()
        self.head = nn.Conv1d(16, 4, 1)

    def forward(self, x):
        return self.head(torch.relu(self.conv(x)))


def make_model():
    return Net().eval()


def example_inputs():
    return (torch.randn(2, 8, 32),)


def other_inputs():
    return [(torch.randn(3, 8, 20),), (torch.randn(1, 8, 45),)]


def probe_inputs():
    return other_inputs()
