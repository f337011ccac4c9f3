"""Custom PyG `MessagePassing` layer (HeteroGNNConv) whose aggregation is
`MultiAggregation([Mean, Max, Sum], mode='cat')`; the max branch is PyG's
`src.new_zeros(size).scatter_reduce_(..., reduce='amax', include_self=False)`, and export fails on
'aten::scatter_reduce' (GCNConv with sum aggregation exports fine).

Source: https://github.com/pyg-team/pytorch_geometric/issues/7890
"""
import torch
from torch import Tensor

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "nodes"}, "edge_index": {1: "edges"}}
BLIND = "domains-3"


def broadcast(src: Tensor, ref: Tensor, dim: int) -> Tensor:
    size = ((1, ) * dim) + (-1, ) + ((1, ) * (ref.dim() - dim - 1))
    return src.view(size).expand_as(ref)


def scatter(src, index, dim=0, dim_size=None, reduce='sum'):
    # torch_geometric.utils._scatter.scatter (torch>=1.12 path)
    if dim_size is None:
        dim_size = int(index.max()) + 1 if index.numel() > 0 else 0
    size = list(src.size())
    size[dim] = dim_size
    if reduce == 'sum' or reduce == 'add':
        index = broadcast(index, src, dim)
        return src.new_zeros(size).scatter_add_(dim, index, src)
    if reduce == 'mean':
        count = src.new_zeros(dim_size)
        count.scatter_add_(0, index, src.new_ones(src.size(dim)))
        count = count.clamp(min=1)
        index = broadcast(index, src, dim)
        out = src.new_zeros(size).scatter_add_(dim, index, src)
        return out / broadcast(count, out, dim)
    if reduce == 'min' or reduce == 'max':
        index = broadcast(index, src, dim)
        return src.new_zeros(size).scatter_reduce_(
            dim, index, src, reduce=f'a{reduce}', include_self=False)
    raise ValueError(f"Encountered invalid `reduce` argument '{reduce}'")


class Aggregation(torch.nn.Module):
    reduce = 'sum'

    def forward(self, x, index, dim_size=None, dim=-2):
        return scatter(x, index, dim=dim, dim_size=dim_size, reduce=self.reduce)


class MeanAggregation(Aggregation):
    reduce = 'mean'


class MaxAggregation(Aggregation):
    reduce = 'max'


class SumAggregation(Aggregation):
    reduce = 'sum'


class MultiAggregation(torch.nn.Module):
    def __init__(self, aggrs, mode='cat'):
        super().__init__()
        self.aggrs = torch.nn.ModuleList(aggrs)
        self.mode = mode

    def forward(self, x, index, dim_size=None, dim=-2):
        outs = [aggr(x, index, dim_size=dim_size, dim=dim) for aggr in self.aggrs]
        return torch.cat(outs, dim=-1)


class HeteroGNNConv(torch.nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.aggr_module = MultiAggregation([
            MeanAggregation(),
            MaxAggregation(),
            SumAggregation()
        ], mode='cat')
        self.lin_src = torch.nn.Linear(in_channels, out_channels)
        self.lin_tgt = torch.nn.Linear(in_channels, out_channels)
        self.lin_update = torch.nn.Linear(3 * out_channels + in_channels, out_channels)

    def propagate(self, edge_index, x):
        # MessagePassing.propagate, flow='source_to_target'
        x_j = x.index_select(0, edge_index[0])
        msg = self.message(x_j)
        return self.aggr_module(msg, edge_index[1], dim_size=x.size(0), dim=0)

    def message(self, x_j):
        return x_j

    def forward(self, x, edge_index, size=None):
        x_out = self.lin_src(x)
        agg = self.propagate(edge_index, x=x_out)
        out = self.lin_update(torch.cat([x, agg], dim=-1))
        return out


class HeteroGNN(torch.nn.Module):
    def __init__(self, in_channels=12, hidden=16):
        super().__init__()
        self.conv1 = HeteroGNNConv(in_channels, hidden)
        self.conv2 = HeteroGNNConv(hidden, hidden)

    def forward(self, x, edge_index):
        x = self.conv1(x, edge_index).relu()
        return self.conv2(x, edge_index)


def make_model():
    return HeteroGNN()


def _graph(n, e):
    return (torch.randn(n, 12), torch.randint(0, n, (2, e)))


def example_inputs():
    return _graph(30, 80)


def other_inputs():
    return [_graph(45, 130), _graph(12, 25)]


def probe_inputs():
    return other_inputs()
