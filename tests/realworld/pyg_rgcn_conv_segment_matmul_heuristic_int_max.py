"""PyG `RGCNConv` (no bases/blocks): when `torch_geometric.backend.use_segment_matmul` is unset, forward counts edges per
relation and calls `use_segment_matmul_heuristic(max_segment_size=int(segment_count.max()), ...)`, which returns
`bool(x @ weight >= bias)`; the report's `torch._dynamo.explain` shows graph breaks on `BuiltinVariable(int)
[TensorVariable()]` and `BuiltinVariable(bool) [TensorVariable()]` (fixed by skipping the heuristic while compiling).
(`MessagePassing.propagate` reduced to a gather + scatter-mean; no pyg-lib, so the per-relation loop runs.)

Source: https://github.com/pyg-team/pytorch_geometric/issues/8467
"""
from typing import Optional

import torch
from torch import Tensor, nn
from torch.nn import Parameter as Param

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {"x": {0: "num_nodes"}, "edge_index": {1: "num_edges"}, "edge_type": {0: "num_edges"}}
BLIND = "domains-35"

use_segment_matmul: Optional[bool] = None  # torch_geometric.backend
WITH_SEGMM = False  # torch_geometric.typing (pyg-lib not installed)


def use_segment_matmul_heuristic(num_segments: int, max_segment_size: int, in_channels: int,
                                 out_channels: int) -> bool:
    x = torch.tensor([num_segments, max_segment_size, in_channels, out_channels])
    mean = torch.tensor([125.11603189, 12133.21523472, 163.81222321, 32.43755536])
    std = torch.tensor([163.34480422, 27572.94543809, 177.6426489, 56.82103934])
    weight = torch.tensor([2.43877659e+00, 1.67583047e+00, -5.20527282e-04, 3.43925501e-01])
    bias = 1.20236999

    x = (x - mean) / std
    return bool(x @ weight >= bias)


def broadcast(src, ref, dim):
    size = ((1, ) * dim) + (-1, ) + ((1, ) * (ref.dim() - dim - 1))
    return src.view(size).expand_as(ref)


def scatter(src, index, dim=0, dim_size=None, reduce='sum'):
    size = src.size()[:dim] + (dim_size, ) + src.size()[dim + 1:]
    if reduce == 'sum':
        index = broadcast(index, src, dim)
        return src.new_zeros(size).scatter_add_(dim, index, src)
    # reduce == 'mean'
    count = src.new_zeros(dim_size)
    count.scatter_add_(0, index, src.new_ones(src.size(dim)))
    count = count.clamp(min=1)
    index = broadcast(index, src, dim)
    out = src.new_zeros(size).scatter_add_(dim, index, src)
    return out / broadcast(count, out, dim)


def masked_edge_index(edge_index, edge_mask):
    return edge_index[:, edge_mask]


class RGCNConv(nn.Module):
    def __init__(self, in_channels, out_channels, num_relations, aggr='mean'):
        super().__init__()
        self.in_channels_l = in_channels
        self.out_channels = out_channels
        self.num_relations = num_relations
        self.num_bases = None
        self.aggr = aggr
        self._use_segment_matmul_heuristic_output: Optional[bool] = None
        self.weight = Param(torch.randn(num_relations, in_channels, out_channels) * 0.1)
        self.root = Param(torch.randn(in_channels, out_channels) * 0.1)
        self.bias = Param(torch.zeros(out_channels))

    def propagate(self, edge_index, x, edge_type_ptr, size):
        x_j = x[edge_index[0]]
        return scatter(x_j, edge_index[1], dim_size=size[1], reduce=self.aggr)

    def forward(self, x: Tensor, edge_index: Tensor, edge_type: Tensor):
        x_l = x
        x_r = x_l
        size = (x_l.size(0), x_r.size(0))

        out = torch.zeros(x_r.size(0), self.out_channels, device=x_r.device)
        weight = self.weight

        use_segment_matmul_ = use_segment_matmul
        # If `use_segment_matmul` is not specified, use a simple heuristic
        # to determine whether `segment_matmul` can speed up computation
        # given the observed input sizes:
        if use_segment_matmul_ is None:
            segment_count = scatter(torch.ones_like(edge_type), edge_type,
                                    dim_size=self.num_relations)

            self._use_segment_matmul_heuristic_output = (
                use_segment_matmul_heuristic(
                    num_segments=self.num_relations,
                    max_segment_size=int(segment_count.max()),
                    in_channels=self.weight.size(1),
                    out_channels=self.weight.size(2),
                ))

            assert self._use_segment_matmul_heuristic_output is not None
            use_segment_matmul_ = self._use_segment_matmul_heuristic_output

        use_segment_matmul_ &= self.num_bases is None
        use_segment_matmul_ &= x_l.is_floating_point()
        use_segment_matmul_ &= isinstance(edge_index, Tensor)

        if use_segment_matmul_ and WITH_SEGMM:
            raise NotImplementedError  # pyg_lib.ops.segment_matmul path
        else:
            for i in range(self.num_relations):
                tmp = masked_edge_index(edge_index, edge_type == i)
                h = self.propagate(tmp, x=x_l, edge_type_ptr=None, size=size)
                out = out + (h @ weight[i])

        out = out + x_r @ self.root
        out = out + self.bias
        return out


class RGCN(nn.Module):
    def __init__(self, in_channels=16, hidden=32, out_channels=8, num_relations=3):
        super().__init__()
        self.conv1 = RGCNConv(in_channels, hidden, num_relations)
        self.conv2 = RGCNConv(hidden, out_channels, num_relations)

    def forward(self, x, edge_index, edge_type):
        x = self.conv1(x, edge_index, edge_type).relu()
        return self.conv2(x, edge_index, edge_type)


def make_model():
    return RGCN().eval()


def _graph(n, e):
    return (torch.randn(n, 16), torch.randint(0, n, (2, e)), torch.randint(0, 3, (e,)))


def example_inputs():
    return _graph(10, 30)


def other_inputs():
    return [_graph(17, 55), _graph(6, 12)]


def probe_inputs():
    return other_inputs()
