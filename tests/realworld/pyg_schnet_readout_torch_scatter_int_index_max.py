"""PyG's SchNet (before PR #5938) asserts on `z` and reads out per-molecule energies with
`torch_scatter.scatter(h, batch, dim=0, reduce=self.readout)`, whose output size is
`int(index.max()) + 1`; the PR says these control-flow patterns "are not traceable" and replaced them
with an `Aggregation` module. (torch_scatter's pure-python `scatter_sum` is copied in; the interaction
blocks and radius graph are left out.)

Source: https://github.com/pyg-team/pytorch_geometric/pull/5938
"""
from typing import Optional

import torch
import torch.nn.functional as F
from torch import Tensor
from torch.nn import Embedding, Linear

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"z": {0: "num_atoms"}, "pos": {0: "num_atoms"}, "batch": {0: "num_atoms"}}
BLIND = "domains-57"


def broadcast(src: Tensor, other: Tensor, dim: int):
    if dim < 0:
        dim = other.dim() + dim
    if src.dim() == 1:
        for _ in range(0, dim):
            src = src.unsqueeze(0)
    for _ in range(src.dim(), other.dim()):
        src = src.unsqueeze(-1)
    src = src.expand(other.size())
    return src


def scatter_sum(src: Tensor, index: Tensor, dim: int = -1, out: Optional[Tensor] = None,
                dim_size: Optional[int] = None) -> Tensor:
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


def scatter(src: Tensor, index: Tensor, dim: int = -1, out: Optional[Tensor] = None,
            dim_size: Optional[int] = None, reduce: str = "sum") -> Tensor:
    if reduce == 'sum' or reduce == 'add':
        return scatter_sum(src, index, dim, out, dim_size)
    raise ValueError


class ShiftedSoftplus(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.shift = torch.log(torch.tensor(2.0)).item()

    def forward(self, x: Tensor) -> Tensor:
        return F.softplus(x) - self.shift


class SchNet(torch.nn.Module):
    def __init__(self, hidden_channels: int = 32, readout: str = 'add', dipole: bool = False,
                 mean: Optional[float] = None, std: Optional[float] = None):
        super().__init__()
        self.hidden_channels = hidden_channels
        self.readout = readout
        self.dipole = dipole
        self.readout = 'add' if self.dipole else self.readout
        self.mean = mean
        self.std = std
        self.scale = None
        self.atomref = None
        self.embedding = Embedding(100, hidden_channels, padding_idx=0)
        self.lin1 = Linear(hidden_channels, hidden_channels // 2)
        self.act = ShiftedSoftplus()
        self.lin2 = Linear(hidden_channels // 2, 1)

    def forward(self, z: Tensor, pos: Tensor, batch: Optional[Tensor] = None) -> Tensor:
        assert z.dim() == 1 and not torch.is_floating_point(z)
        batch = torch.zeros_like(z) if batch is None else batch

        h = self.embedding(z)
        h = h + 0.1 * pos.norm(dim=-1, keepdim=True)  # stands in for the interaction blocks

        h = self.lin1(h)
        h = self.act(h)
        h = self.lin2(h)

        if not self.dipole and self.mean is not None and self.std is not None:
            h = h * self.std + self.mean

        out = scatter(h, batch, dim=0, reduce=self.readout)

        if self.scale is not None:
            out = self.scale * out

        return out


def make_model():
    return SchNet(mean=0.5, std=2.0).eval()


def _mols(sizes):
    n = sum(sizes)
    z = torch.randint(1, 10, (n,))
    pos = torch.randn(n, 3)
    batch = torch.cat([torch.full((s,), i, dtype=torch.long) for i, s in enumerate(sizes)])
    return (z, pos, batch)


def example_inputs():
    return _mols([5, 4, 6])


def other_inputs():
    return [_mols([3, 7]), _mols([4, 2, 5, 3, 6])]


def probe_inputs():
    return other_inputs()
