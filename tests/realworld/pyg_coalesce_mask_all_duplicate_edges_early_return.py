"""PyG `coalesce()` (used here by a weighted-GCN-style layer to merge duplicate edges before aggregation)
sorts the edge keys, builds `mask = idx[1:] > idx[:-1]` and returns early with `if mask.all():` when there are
no duplicate edges. PyG's "make coalesce compile friendly" commit guards that check with
`torch.compiler.is_compiling()` (and turns the overflow `raise` into `torch._check`) because the branch on a
tensor value breaks torch.compile/torch.export; this is the code before that commit.

Source: https://github.com/pyg-team/pytorch_geometric/commit/d04a7827cce0010221d8003b09aed48184d15bc2
"""
from typing import Optional

import torch
from torch import Tensor, nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "num_nodes"}, "edge_index": {1: "num_edges"}, "edge_weight": {0: "num_edges"}}
BLIND = "domains-62"

MAX_INT64 = torch.iinfo(torch.int64).max


def index_sort(inputs: Tensor, max_value: Optional[int] = None, stable: bool = False):
    # torch_geometric.utils.index_sort without pyg-lib
    return inputs.sort(stable=stable)


def broadcast(src: Tensor, ref: Tensor, dim: int) -> Tensor:
    size = ((1, ) * dim) + (-1, ) + ((1, ) * (ref.dim() - dim - 1))
    return src.view(size).expand_as(ref)


def scatter(src: Tensor, index: Tensor, dim: int = 0, dim_size: Optional[int] = None,
            reduce: str = 'sum') -> Tensor:
    dim = src.dim() + dim if dim < 0 else dim
    if dim_size is None:
        dim_size = int(index.max()) + 1 if index.numel() > 0 else 0
    size = src.size()[:dim] + (dim_size, ) + src.size()[dim + 1:]
    index = broadcast(index, src, dim)
    return src.new_zeros(size).scatter_add_(dim, index, src)


def coalesce(edge_index: Tensor, edge_attr: Optional[Tensor] = None, num_nodes: Optional[int] = None,
             reduce: str = 'sum', is_sorted: bool = False, sort_by_row: bool = True):
    num_edges = edge_index[0].size(0)
    num_nodes = int(edge_index.max()) + 1 if num_nodes is None else num_nodes

    if num_nodes * num_nodes > MAX_INT64:
        raise ValueError("'coalesce' will result in an overflow")

    idx = edge_index[0].new_empty(num_edges + 1)
    idx[0] = -1
    idx[1:] = edge_index[1 - int(sort_by_row)]
    idx[1:].mul_(num_nodes).add_(edge_index[int(sort_by_row)])

    if not is_sorted:
        idx[1:], perm = index_sort(idx[1:], max_value=num_nodes * num_nodes)
        edge_index = edge_index[:, perm]
        if isinstance(edge_attr, Tensor):
            edge_attr = edge_attr[perm]

    mask = idx[1:] > idx[:-1]

    # Only perform expensive merging in case there exists duplicates:
    if mask.all():
        return edge_index, edge_attr

    edge_index = edge_index[:, mask]

    dim_size: Optional[int] = None
    if isinstance(edge_attr, Tensor) and len(edge_attr) > 0:
        dim_size = edge_index.size(1)
        idx = torch.arange(0, num_edges, device=edge_index.device)
        idx.sub_(mask.logical_not_().cumsum(dim=0))

    if edge_attr is None:
        return edge_index, None
    edge_attr = scatter(edge_attr, idx, 0, dim_size, reduce)
    return edge_index, edge_attr


class WeightedGraphConv(nn.Module):
    def __init__(self, in_channels=16, out_channels=32):
        super().__init__()
        self.lin = nn.Linear(in_channels, out_channels)

    def forward(self, x, edge_index, edge_weight):
        # merge parallel edges (summing their weights) before message passing
        edge_index, edge_weight = coalesce(edge_index, edge_weight, num_nodes=x.size(0))
        row, col = edge_index[0], edge_index[1]
        h = self.lin(x)
        msg = h[row] * edge_weight.view(-1, 1)
        return scatter(msg, col, 0, x.size(0), reduce='sum')


def make_model():
    return WeightedGraphConv().eval()


def _graph(num_nodes, num_edges, dup):
    if dup:   # a multigraph: some edges appear twice
        edge_index = torch.randint(0, num_nodes, (2, num_edges))
        edge_index[:, -2:] = edge_index[:, :2]
    else:     # a simple graph: every (src, dst) pair at most once
        key = torch.randperm(num_nodes * num_nodes)[:num_edges]
        edge_index = torch.stack([key // num_nodes, key % num_nodes])
    return torch.randn(num_nodes, 16), edge_index, torch.rand(num_edges)


def example_inputs():
    return _graph(10, 30, dup=True)


def other_inputs():
    return [_graph(14, 41, dup=True), _graph(7, 19, dup=False)]


def probe_inputs():
    return other_inputs()
