"""PyG's `QuantileAggregation` / `MedianAggregation` readout (before PR #7426) counts nodes per graph with
`torch.bincount(index, minlength=dim_size or 0)` and builds the empty-graph mask with
`(count == 0).repeat_interleave(self.q.numel())` without `output_size`; the PR says the meta kernel
"throws an exception if output_size is None" under torch.compile backends, so the size had to be passed.

Source: https://github.com/pyg-team/pytorch_geometric/pull/7426
"""
from typing import Optional

import torch
from torch import Tensor

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "num_nodes"}, "batch": {0: "num_nodes"}}
BLIND = "domains-57"


class QuantileAggregation(torch.nn.Module):
    def __init__(self, q, interpolation: str = 'linear', fill_value: float = 0.0):
        super().__init__()
        qs = [q] if not isinstance(q, (list, tuple)) else q
        self._q = q
        self.register_buffer('q', torch.Tensor(qs).view(-1, 1))
        self.interpolation = interpolation
        self.fill_value = fill_value

    def forward(self, x: Tensor, index: Optional[Tensor] = None,
                ptr: Optional[Tensor] = None, dim_size: Optional[int] = None,
                dim: int = -2) -> Tensor:

        dim = x.dim() + dim if dim < 0 else dim

        assert index is not None  # Required for TorchScript.

        count = torch.bincount(index, minlength=dim_size or 0)
        cumsum = torch.cumsum(count, dim=0) - count

        if dim_size is not None:
            cumsum = cumsum.clamp(max=x.size(dim) - 1)

        q_point = self.q * (count - 1) + cumsum
        q_point = q_point.t().reshape(-1)

        shape = [1] * x.dim()
        shape[dim] = -1
        index = index.view(shape).expand_as(x)

        x, x_perm = torch.sort(x, dim=dim)
        index = index.take_along_dim(x_perm, dim=dim)
        index, index_perm = torch.sort(index, dim=dim, stable=True)
        x = x.take_along_dim(index_perm, dim=dim)

        l_quant = x.index_select(dim, q_point.floor().long())
        r_quant = x.index_select(dim, q_point.ceil().long())
        q_frac = q_point.frac().view(shape)
        quantile = l_quant + (r_quant - l_quant) * q_frac

        # If the number of elements is zero, fill with pre-defined value:
        mask = (count == 0).repeat_interleave(self.q.numel()).view(shape)
        out = quantile.masked_fill(mask, self.fill_value)

        if self.q.numel() > 1:
            shape = list(out.shape)
            shape = (shape[:dim] + [shape[dim] // self.q.numel(), -1] +
                     shape[dim + 2:])
            out = out.view(shape)

        return out


class MedianAggregation(QuantileAggregation):
    def __init__(self, fill_value: float = 0.0):
        super().__init__(0.5, 'lower', fill_value)

    def forward(self, x, index=None, ptr=None, dim_size=None, dim=-2):
        return super().forward(x, index, ptr, dim_size, dim)


class GraphReadout(torch.nn.Module):
    def __init__(self, in_channels=8, hidden=16):
        super().__init__()
        self.lin = torch.nn.Linear(in_channels, hidden)
        self.aggr = QuantileAggregation([0.25, 0.5, 0.75])
        self.out = torch.nn.Linear(3 * hidden, 1)

    def forward(self, x, batch):
        h = self.lin(x).relu()
        g = self.aggr(h, batch)          # [num_graphs, 3, hidden]
        return self.out(g.flatten(1))


def make_model():
    return GraphReadout().eval()


def _graphs(sizes):
    x = torch.randn(sum(sizes), 8)
    batch = torch.cat([torch.full((s,), i, dtype=torch.long) for i, s in enumerate(sizes)])
    return (x, batch)


def example_inputs():
    return _graphs([5, 3, 6])


def other_inputs():
    return [_graphs([4, 7]), _graphs([2, 5, 3, 6, 4])]


def probe_inputs():
    return other_inputs()
