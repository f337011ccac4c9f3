"""RETURNN (RWTH ASR toolkit) PyTorch backend: `TorchBackend.full()` builds `shape = [dim.get_dim_value()
for dim in dims]`, and the values of dynamic dims are int32 tensors (RETURNN keeps batch/sequence sizes as
int32). `torch.full(shape, ...)` exports to ONNX as ConstantOfShape fed by an int32 Concat, which
onnxruntime refuses to load ("Type 'tensor(int32)' of input parameter ... of operator (ConstantOfShape)
... is invalid"); the fix casts the dim values to int64 under `torch.onnx.is_in_onnx_export()`.

Source: https://github.com/rwth-i6/returnn/issues/1333
"""
from typing import List, Optional

import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"data": {0: "batch", 1: "time"}, "seq_lens": {0: "batch"}}
BLIND = "domains-40"


class Dim:
    """Minimal stand-in for returnn.tensor.Dim: static dims have `dimension`, dynamic dims carry
    their sizes in `dyn_size_ext` (int32, like RETURNN's seq lengths)."""

    def __init__(self, name: str, dimension: Optional[int] = None, dyn_size_ext: Optional[torch.Tensor] = None):
        self.name = name
        self.dimension = dimension
        self.dyn_size_ext = dyn_size_ext

    def get_dim_value(self):
        if self.dimension is not None:
            return self.dimension
        if self.dyn_size_ext.dim() == 0:
            return self.dyn_size_ext
        return self.dyn_size_ext.max()


class TorchBackend:
    @staticmethod
    def full(dims: List[Dim], fill_value, *, dtype: torch.dtype) -> torch.Tensor:
        shape = [dim.get_dim_value() for dim in dims]
        raw_tensor = torch.full(shape, fill_value, dtype=dtype)
        return raw_tensor

    @staticmethod
    def range_over_dim(dim: Dim) -> torch.Tensor:
        return torch.arange(dim.get_dim_value(), dtype=torch.int32)


class DemoModel(nn.Module):
    """RF demo-style encoder: linear + ReLU over the frames, padded frames zeroed with a mask built
    through rf.full / rf.range_over_dim."""

    def __init__(self, in_dim=40, out_dim=32):
        super().__init__()
        self.linear = nn.Linear(in_dim, out_dim)

    def forward(self, data, seq_lens):
        batch_dim = Dim("batch", dyn_size_ext=torch.tensor(data.shape[0], dtype=torch.int32))
        time_dim = Dim("time", dyn_size_ext=seq_lens)
        x = torch.relu(self.linear(data))
        zeros = TorchBackend.full([batch_dim, time_dim], 0, dtype=torch.int32)
        positions = zeros + TorchBackend.range_over_dim(time_dim)
        mask = positions < seq_lens.unsqueeze(1)
        return x * mask.unsqueeze(-1).to(x.dtype)


def make_model():
    return DemoModel().eval()


def example_inputs():
    return (torch.randn(2, 17, 40), torch.tensor([17, 11], dtype=torch.int32))


def other_inputs():
    return [
        (torch.randn(3, 25, 40), torch.tensor([9, 25, 20], dtype=torch.int32)),
        (torch.randn(1, 6, 40), torch.tensor([6], dtype=torch.int32)),
    ]


def probe_inputs():
    return other_inputs()
