"""GNN layer that builds its (m x num_nodes) adjacency from row/col edge indices as a torch_sparse
`SparseTensor(row=row, col=col, sparse_sizes=(m, num_nodes)).to_torch_sparse_coo_tensor()` and feeds
it to an nn.Linear; the report: "Exporting the operator 'aten::sparse_coo_tensor' to ONNX opset
version 17 is not supported". The two torch_sparse lines are inlined as the COO constructor they run.

Source: https://github.com/pytorch/pytorch/issues/112487
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"row": {0: "edges"}, "col": {0: "edges"}}
BLIND = "operators-5"


def to_torch_sparse_coo_tensor(row, col, sparse_sizes):
    # torch_sparse.SparseTensor(row=row, col=col, sparse_sizes=...).to_torch_sparse_coo_tensor()
    index = torch.stack([row, col], dim=0)
    value = torch.ones(row.numel(), dtype=torch.float, device=row.device)
    return torch.sparse_coo_tensor(index, value, sparse_sizes)


class SparseAdjacencyMLP(nn.Module):
    def __init__(self, m=6, num_nodes=10, hidden=16):
        super().__init__()
        self.m = m
        self.num_nodes = num_nodes
        self.mlp = nn.Linear(num_nodes, hidden)

    def forward(self, row, col):
        A = to_torch_sparse_coo_tensor(row, col, (self.m, self.num_nodes))
        Ax = self.mlp(A)
        return Ax


def make_model():
    return SparseAdjacencyMLP()


def _edges(e):
    return (torch.randint(0, 6, (e,)), torch.randint(0, 10, (e,)))


def example_inputs():
    return _edges(12)


def other_inputs():
    return [_edges(20), _edges(5)]


def probe_inputs():
    return other_inputs()
