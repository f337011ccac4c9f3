"""GraphSAGE trained with neighbor sampling (a new graph size every batch): PyG's `scatter` helper sizes the
mean-aggregation output with `dim_size = int(index.max()) + 1 if index.numel() > 0 else 0` and counts with
`src.new_zeros(dim_size)`; the report shows torch dynamo failing on these dynamic batches at that line
(the size comes from the edge-index values, not from a shape).

Source: https://github.com/pytorch/pytorch/issues/94640
"""
from typing import Optional

import torch
from torch import Tensor, nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "num_nodes"}, "edge_index": {1: "num_edges"}}
BLIND = "domains-40"


def broadcast(src: Tensor, ref: Tensor, dim: int) -> Tensor:
    size = [1] * ref.dim()
    size[dim] = -1
    return src.view(size).expand_as(ref)


def scatter(src: Tensor, index: Tensor, dim: int = 0,
            dim_size: Optional[int] = None, reduce: str = 'sum') -> Tensor:

    dim = src.dim() + dim if dim < 0 else dim

    if dim_size is None:
        dim_size = int(index.max()) + 1 if index.numel() > 0 else 0

    size = list(src.size())
    size[dim] = dim_size

    count = src.new_zeros(dim_size)
    count.scatter_add_(0, index, src.new_ones(src.size(dim)))
    count = count.clamp(min=1)

    index = broadcast(index, src, dim)
    out = src.new_zeros(size).scatter_add_(dim, index, src)

    return out / broadcast(count, out, dim)


class SAGEConv(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.lin_l = nn.Linear(in_channels, out_channels)
        self.lin_r = nn.Linear(in_channels, out_channels, bias=False)

    def forward(self, x, edge_index):
        x_j = x[edge_index[0]]
        aggr = scatter(x_j, edge_index[1], dim=0, reduce='mean')
        return self.lin_l(aggr) + self.lin_r(x)


class GraphSAGE(nn.Module):
    def __init__(self, in_channels=16, hidden=32, out_channels=8):
        super().__init__()
        self.conv1 = SAGEConv(in_channels, hidden)
        self.conv2 = SAGEConv(hidden, out_channels)

    def forward(self, x, edge_index):
        x = self.conv1(x, edge_index).relu()
        return self.conv2(x, edge_index)


def make_model():
    return GraphSAGE()


def _batch(num_nodes, num_edges):
    # a sampled subgraph: every node receives at least one message (self edges first)
    dst = torch.cat([torch.arange(num_nodes), torch.randint(0, num_nodes, (num_edges - num_nodes,))])
    src = torch.randint(0, num_nodes, (num_edges,))
    return (torch.randn(num_nodes, 16), torch.stack([src, dst]))


def example_inputs():
    return _batch(10, 30)


def other_inputs():
    return [_batch(17, 60), _batch(6, 11)]


def probe_inputs():
    return other_inputs()
