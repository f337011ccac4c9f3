"""TorchMD-Net's OutputModel.reduce sums per-atom outputs into per-molecule energies with
scatter(dim_size=self.dim_size), where self.dim_size = int(batch.max().item() + 1) is stored on the
module on every call (outside CUDA-graph capture); the ONNX export commits replaced this because the
capture check and the molecule count read from data do not export.

Source: https://github.com/torchmd/torchmd-net/commit/f060078bcb4bea233d9e39352864c311f6a896af
"""
from typing import Optional

import torch
from torch import Tensor, nn

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {"x": {0: "atoms"}, "batch": {0: "atoms"}}
BLIND = "domains-80"


def is_current_stream_capturing():
    return torch.cuda.is_current_stream_capturing()


def _broadcast(src: Tensor, other: Tensor, dim: int):
    if dim < 0:
        dim = other.dim() + dim
    if src.dim() == 1:
        for _ in range(0, dim):
            src = src.unsqueeze(0)
    for _ in range(src.dim(), other.dim()):
        src = src.unsqueeze(-1)
    src = src.expand_as(other)
    return src


def scatter(src: Tensor, index: Tensor, dim: int = 0, dim_size: Optional[int] = None,
            reduce: str = "sum") -> Tensor:
    """Has the signature of torch_scatter.scatter, but uses torch.scatter_reduce instead."""
    if dim_size is None:
        dim_size = index.max().item() + 1
    operation_dict = {"add": "sum", "sum": "sum", "mul": "prod", "mean": "mean",
                      "min": "amin", "max": "amax"}
    reduce_op = operation_dict[reduce]
    index = _broadcast(index, src, dim)
    size = list(src.size())
    if dim_size is not None:
        size[dim] = dim_size
    elif index.numel() == 0:
        size[dim] = 0
    else:
        size[dim] = int(index.max()) + 1
    out = torch.zeros(size, dtype=src.dtype, device=src.device)
    res = out.scatter_reduce(dim, index, src, reduce_op)
    return res


class Scalar(nn.Module):
    def __init__(self, hidden_channels=32, allow_prior_model=True, reduce_op="sum"):
        super(Scalar, self).__init__()
        self.allow_prior_model = allow_prior_model
        self.reduce_op = reduce_op
        self.dim_size = 0
        self.output_network = nn.Sequential(
            nn.Linear(hidden_channels, hidden_channels // 2), nn.SiLU(),
            nn.Linear(hidden_channels // 2, 1))

    def pre_reduce(self, x, v: Optional[torch.Tensor], z, pos, batch):
        return self.output_network(x)

    def reduce(self, x, batch):
        is_capturing = x.is_cuda and is_current_stream_capturing()
        if not x.is_cuda or not is_capturing:
            self.dim_size = int(batch.max().item() + 1)
        if is_capturing:
            assert (
                self.dim_size > 0
            ), "Warming up is needed before capturing the model into a CUDA graph"
        return scatter(x, batch, dim=0, dim_size=self.dim_size, reduce=self.reduce_op)

    def post_reduce(self, x):
        return x

    def forward(self, x, batch):
        x = self.pre_reduce(x, None, None, None, batch)
        return self.post_reduce(self.reduce(x, batch))


def make_model():
    return Scalar()


def _batch(counts):
    return torch.repeat_interleave(torch.arange(len(counts)), torch.tensor(counts))


def example_inputs():
    return (torch.randn(7, 32), _batch([3, 4]))


def other_inputs():
    return [(torch.randn(12, 32), _batch([2, 5, 3, 2])),
            (torch.randn(5, 32), _batch([5]))]


def probe_inputs():
    return other_inputs()
