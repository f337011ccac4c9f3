"""NequIP (equivariant interatomic potential): `AtomwiseReduce` sums per-atom energies into per-frame energies with
`scatter(..., dim_size=AtomicDataDict.num_frames(data))`, and `num_frames` is `len(data["num_atoms"])`, a Python
builtin on a tensor size; the commit replaced `len(...)`/`.shape` in `num_frames`/`num_nodes`/`num_edges` with
`.size(...)`. Trimmed to a per-atom energy head plus the reduce; nequip's scatter is copied in.

Source: https://github.com/mir-group/nequip/commit/cee8ddfcacdfbc05d6d70f882862d5213c214a2e
"""
from typing import Dict, Optional

import torch

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"atom_types": {0: "atoms"}, "batch": {0: "atoms"}, "num_atoms": {0: "frames"}}
BLIND = "domains-49"

NUM_NODES_KEY = "num_atoms"
BATCH_KEY = "batch"
ATOM_TYPE_KEY = "atom_types"


def num_frames(data: Dict[str, torch.Tensor]) -> int:
    if NUM_NODES_KEY not in data:
        return 1
    else:
        return len(data[NUM_NODES_KEY])


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


def scatter(src: torch.Tensor, index: torch.Tensor, dim: int = -1, out: Optional[torch.Tensor] = None,
            dim_size: Optional[int] = None, reduce: str = "sum") -> torch.Tensor:
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


class AtomwiseReduce(torch.nn.Module):
    def __init__(self, field: str, out_field: Optional[str] = None, reduce="sum", avg_num_atoms=None):
        super().__init__()
        self.constant = 1.0
        if reduce == "normalized_sum":
            self.constant = float(avg_num_atoms) ** -0.5
            reduce = "sum"
        self.reduce = reduce
        self.field = field
        self.out_field = f"{reduce}_{field}" if out_field is None else out_field

    def forward(self, data: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
        field = data[self.field]
        if BATCH_KEY in data:
            result = scatter(
                field,
                data[BATCH_KEY],
                dim=0,
                dim_size=num_frames(data),
                reduce=self.reduce,
            )
        else:
            result = field.sum(dim=0, keepdim=True)
        if self.constant != 1.0:
            result = result * self.constant
        data[self.out_field] = result
        return data


class EnergyModel(torch.nn.Module):
    def __init__(self, num_types=4, hidden=16):
        super().__init__()
        self.embedding = torch.nn.Embedding(num_types, hidden)
        self.atomic_energy = torch.nn.Sequential(torch.nn.Linear(hidden, hidden), torch.nn.SiLU(),
                                                 torch.nn.Linear(hidden, 1))
        self.reduce = AtomwiseReduce("atomic_energy", "total_energy", reduce="normalized_sum", avg_num_atoms=8)

    def forward(self, atom_types, batch, num_atoms):
        data = {ATOM_TYPE_KEY: atom_types, BATCH_KEY: batch, NUM_NODES_KEY: num_atoms}
        data["atomic_energy"] = self.atomic_energy(self.embedding(data[ATOM_TYPE_KEY]))
        data = self.reduce(data)
        return data["total_energy"]


def make_model():
    return EnergyModel()


def _inputs(sizes):
    batch = torch.cat([torch.full((n,), i, dtype=torch.long) for i, n in enumerate(sizes)])
    return (torch.randint(0, 4, (int(batch.numel()),)), batch, torch.tensor(sizes))


def example_inputs():
    return _inputs([5, 7])


def other_inputs():
    return [_inputs([4, 9, 6]), _inputs([3, 8, 5, 6])]


def probe_inputs():
    return other_inputs()
