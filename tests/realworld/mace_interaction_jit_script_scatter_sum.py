"""MACE (equivariant interatomic potential): the interaction block sums edge messages onto receiver atoms with
`scatter_sum` from mace/tools/scatter.py, which (with its `_broadcast` helper) is decorated `@torch.jit.script`;
the PR adding torch.compile support had to remove those annotations because "the compiled script functions are
not compatible" with the PT2 stack (dynamo/inductor) that the dynamo ONNX exporter also uses.

Source: https://github.com/ACEsuit/mace/pull/300
"""
from typing import Optional

import torch
from torch import nn

CLASS = "cross-call"
FAMILY = "shape_math"
DYNAMIC = {"node_feats": {0: "num_atoms"}, "edge_attrs": {0: "num_edges"}, "edge_index": {1: "num_edges"}}
BLIND = "domains-40"


@torch.jit.script
def _broadcast(src: torch.Tensor, other: torch.Tensor, dim: int):
    if dim < 0:
        dim = other.dim() + dim
    if src.dim() == 1:
        for _ in range(0, dim):
            src = src.unsqueeze(0)
    for _ in range(src.dim(), other.dim()):
        src = src.unsqueeze(-1)
    src = src.expand_as(other)
    return src


@torch.jit.script
def scatter_sum(
    src: torch.Tensor,
    index: torch.Tensor,
    dim: int = -1,
    out: Optional[torch.Tensor] = None,
    dim_size: Optional[int] = None,
    reduce: str = "sum",
) -> torch.Tensor:
    assert reduce == "sum"  # for now, TODO
    index = _broadcast(index, src, dim)
    if out is None:
        size = list(src.size())
        if dim_size is not None:
            size[dim] = dim_size
        elif index.numel() == 0:
            size[dim] = 0
        else:
            size[dim] = int(index.max()) + 1
        out = torch.zeros(size, dtype=src.dtype, device=src.device)
        return out.scatter_add_(dim, index, src)
    else:
        return out.scatter_add_(dim, index, src)


class RealAgnosticInteractionBlock(nn.Module):
    def __init__(self, channels=16, edge_dim=8, avg_num_neighbors=4.0):
        super().__init__()
        self.avg_num_neighbors = avg_num_neighbors
        self.linear_up = nn.Linear(channels, channels, bias=False)
        self.conv_tp_weights = nn.Sequential(nn.Linear(edge_dim, 32), nn.SiLU(), nn.Linear(32, channels))
        self.linear = nn.Linear(channels, channels, bias=False)

    def forward(self, node_feats, edge_attrs, edge_index):
        sender = edge_index[0]
        receiver = edge_index[1]
        num_nodes = node_feats.shape[0]
        node_feats = self.linear_up(node_feats)
        tp_weights = self.conv_tp_weights(edge_attrs)
        mji = node_feats[sender] * tp_weights  # [n_edges, channels]
        message = scatter_sum(src=mji, index=receiver, dim=0, dim_size=num_nodes)  # [n_nodes, channels]
        message = self.linear(message) / self.avg_num_neighbors
        return message


def make_model():
    return RealAgnosticInteractionBlock()


def _graph(num_atoms, num_edges):
    edge_index = torch.randint(0, num_atoms, (2, num_edges))
    return (torch.randn(num_atoms, 16), torch.randn(num_edges, 8), edge_index)


def example_inputs():
    return _graph(6, 20)


def other_inputs():
    return [_graph(11, 42), _graph(4, 9)]


def probe_inputs():
    return other_inputs()
