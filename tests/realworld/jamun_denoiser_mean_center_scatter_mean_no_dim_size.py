"""JAMUN (protein conformational ensembles, molecular denoiser): `xhat` mean-centers the noisy positions per
molecule with `torch_scatter.scatter_mean(y.pos, y.batch, dim=0)` and no `dim_size`, so torch_scatter sizes the
output with `int(index.max()) + 1` from the batch vector's values; the commit that got `torch.compile(dynamic=True)`
working passed `dim_size=y.num_graphs` instead. torch_scatter's Python scatter_sum/scatter_mean are copied in.

Source: https://github.com/prescient-design/jamun/commit/566d702ab3e2c1fef26983678ab25d49656e3da0
"""
from typing import Optional

import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"pos": {0: "atoms"}, "batch": {0: "atoms"}}
BLIND = "domains-49"


def broadcast(src: torch.Tensor, other: torch.Tensor, dim: int):
    if dim < 0:
        dim = other.dim() + dim
    if src.dim() == 1:
        for _ in range(0, dim):
            src = src.unsqueeze(0)
    for _ in range(src.dim(), other.dim()):
        src = src.unsqueeze(-1)
    src = src.expand(other.size())
    return src


def scatter_sum(src: torch.Tensor, index: torch.Tensor, dim: int = -1,
                out: Optional[torch.Tensor] = None, dim_size: Optional[int] = None) -> torch.Tensor:
    index = broadcast(index, src, dim)
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


def scatter_mean(src: torch.Tensor, index: torch.Tensor, dim: int = -1,
                 out: Optional[torch.Tensor] = None, dim_size: Optional[int] = None) -> torch.Tensor:
    out = scatter_sum(src, index, dim, out, dim_size)
    dim_size = out.size(dim)
    index_dim = dim
    if index_dim < 0:
        index_dim = index_dim + src.dim()
    if index.dim() <= index_dim:
        index_dim = index.dim() - 1
    ones = torch.ones(index.size(), dtype=src.dtype, device=src.device)
    count = scatter_sum(ones, index, index_dim, None, dim_size)
    count[count < 1] = 1
    count = broadcast(count, out, dim)
    if out.is_floating_point():
        out.true_divide_(count)
    else:
        out.div_(count, rounding_mode='floor')
    return out


class GraphBatch:
    def __init__(self, pos, batch):
        self.pos = pos
        self.batch = batch


def mean_center(y: GraphBatch) -> GraphBatch:
    """Mean centers the positions."""
    mean_pos = scatter_mean(y.pos, y.batch, dim=0)
    y.pos -= mean_pos[y.batch]
    return y


class Denoiser(nn.Module):
    def __init__(self, hidden=32, sigma=0.5, average_squared_distance=1.0):
        super().__init__()
        self.g = nn.Sequential(nn.Linear(3, hidden), nn.SiLU(), nn.Linear(hidden, 3))
        self.mean_center_input = True
        self.mean_center_output = True
        self.c_in = 1.0 / (sigma ** 2 + average_squared_distance) ** 0.5
        self.c_skip = average_squared_distance / (sigma ** 2 + average_squared_distance)
        self.c_out = sigma * self.c_in

    def xhat(self, y: GraphBatch) -> GraphBatch:
        """Compute the denoised prediction."""
        if self.mean_center_input:
            y = mean_center(y)
        xhat = GraphBatch(self.c_skip * y.pos + self.c_out * self.g(y.pos * self.c_in), y.batch)
        # Mean center the prediction.
        if self.mean_center_output:
            xhat = mean_center(xhat)
        return xhat

    def forward(self, pos, batch):
        return self.xhat(GraphBatch(pos.clone(), batch)).pos


def make_model():
    return Denoiser()


def _inputs(sizes):
    batch = torch.cat([torch.full((n,), i, dtype=torch.long) for i, n in enumerate(sizes)])
    return (torch.randn(int(batch.numel()), 3), batch)


def example_inputs():
    return _inputs([6, 9])


def other_inputs():
    return [_inputs([5, 7, 4, 8]), _inputs([11, 3, 10])]


def probe_inputs():
    return other_inputs()
