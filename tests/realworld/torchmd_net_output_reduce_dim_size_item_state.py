"""TorchMD-Net's output model sums atom energies into molecule energies with `scatter(x, batch, dim_size=self.dim_size)`,
where `self.dim_size = int(batch.max().item() + 1)` is stored on the module and, while compiling/exporting, the stored
value from a warm-up call is reused; the PR making the model torch.export capable replaced this `.item()` count kept
on the module with an explicit `num_systems` argument (before it, the number of molecules is baked in / data-dependent).

Source: https://github.com/torchmd/torchmd-net/pull/382
"""
from abc import abstractmethod, ABCMeta
from typing import Optional
from warnings import warn

import torch
from torch import nn, Tensor

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {"z": {0: "atoms"}, "pos": {0: "atoms"}, "batch": {0: "atoms"}}
BLIND = "domains-33"


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


def scatter(src: Tensor, index: Tensor, dim: int = 0, dim_size: Optional[int] = None, reduce: str = "sum") -> Tensor:
    """Has the signature of torch_scatter.scatter, but uses torch.scatter_reduce instead."""
    if dim_size is None:
        dim_size = index.max().item() + 1
    operation_dict = {"add": "sum", "sum": "sum", "mul": "prod", "mean": "mean", "min": "amin", "max": "amax"}
    reduce_op = operation_dict[reduce]
    # take into account the dimensionality of src
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


class OutputModel(nn.Module, metaclass=ABCMeta):
    def __init__(self, allow_prior_model, reduce_op, static_shapes=False):
        super(OutputModel, self).__init__()
        self.allow_prior_model = allow_prior_model
        self.reduce_op = reduce_op
        self.static_shapes = static_shapes
        self.dim_size = 0

    @abstractmethod
    def pre_reduce(self, x, v, z, pos, batch):
        return

    def reduce(self, x, batch):
        # torch.compile and torch.export don't support .item() calls during tracing
        # The model should be warmed up before compilation to set the correct dim_size
        if torch.compiler.is_compiling():
            pass
        elif torch.jit.is_scripting():
            if not x.is_cuda or not self.static_shapes or self.dim_size == 0:
                self.dim_size = int(batch.max().item() + 1)
        else:
            is_capturing = x.is_cuda and torch.cuda.is_current_stream_capturing()
            if not x.is_cuda or not is_capturing:
                self.dim_size = int(batch.max().item() + 1)
            if is_capturing:
                assert self.dim_size > 0, "Warming up is needed before capturing the model into a CUDA graph"
                warn("CUDA graph capture will lock the batch to the current number of samples ({}).".format(self.dim_size))
        return scatter(x, batch, dim=0, dim_size=self.dim_size, reduce=self.reduce_op)

    def post_reduce(self, x):
        return x


class Scalar(OutputModel):
    def __init__(self, hidden_channels, activation="silu", allow_prior_model=True, reduce_op="sum"):
        super(Scalar, self).__init__(allow_prior_model=allow_prior_model, reduce_op=reduce_op)
        self.output_network = nn.Sequential(
            nn.Linear(hidden_channels, hidden_channels // 2), nn.SiLU(), nn.Linear(hidden_channels // 2, 1))

    def pre_reduce(self, x, v: Optional[torch.Tensor], z, pos, batch):
        return self.output_network(x)


class Representation(nn.Module):
    """Stand-in for the TorchMD-Net representation model: embeds atoms and their positions."""

    def __init__(self, hidden_channels=32, max_z=100):
        super().__init__()
        self.embedding = nn.Embedding(max_z, hidden_channels)
        self.pos_proj = nn.Linear(3, hidden_channels)
        self.act = nn.SiLU()

    def forward(self, z, pos, batch):
        x = self.act(self.embedding(z) + self.pos_proj(pos))
        return x, None, z, pos, batch


class TorchMD_Net(nn.Module):
    def __init__(self, hidden_channels=32, mean=None, std=None):
        super(TorchMD_Net, self).__init__()
        self.representation_model = Representation(hidden_channels)
        self.output_model = Scalar(hidden_channels)
        self.register_buffer("mean", torch.scalar_tensor(0.5) if mean is None else mean)
        self.register_buffer("std", torch.scalar_tensor(2.0) if std is None else std)

    def forward(self, z: Tensor, pos: Tensor, batch: Optional[Tensor] = None):
        assert z.dim() == 1 and z.dtype == torch.long
        batch = torch.zeros_like(z) if batch is None else batch
        x, v, z, pos, batch = self.representation_model(z, pos, batch)
        x = self.output_model.pre_reduce(x, v, z, pos, batch)
        if self.std is not None:
            x = x * self.std
        # aggregate atoms
        x = self.output_model.reduce(x, batch)
        if self.mean is not None:
            x = x + self.mean
        y = self.output_model.post_reduce(x)
        return y


def make_model():
    return TorchMD_Net().eval()


def _molecules(sizes):
    n = sum(sizes)
    z = torch.randint(1, 10, (n,))
    pos = torch.randn(n, 3)
    batch = torch.cat([torch.full((s,), i, dtype=torch.long) for i, s in enumerate(sizes)])
    return (z, pos, batch)


def example_inputs():
    return _molecules([5, 7, 4])


def other_inputs():
    return [_molecules([3, 9, 6, 8, 2]), _molecules([11, 6])]


def probe_inputs():
    return other_inputs()
