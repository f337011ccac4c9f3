"""TAPIR's feature grid pooled unbatched (ibaiGorordo/Tapir-Pytorch-Inference cd391cf): a (C, H, W,
T) grid through `F.avg_pool3d(kernel_size=(2, 2, 1))`, and a (C, L) sequence through a max pool
with its indices. ATen takes (C, *spatial); the legacy exporter writes ONNX's pooling, which
takes a batch, on the tensor as it is, and onnxruntime refuses the model on load ("Attribute
strides has incorrect size"); unbatched_pool, named by that error, pools with a batch of one while
the legacy exporter traces."""
import torch
import torch.nn.functional as F
from torch import nn

DYNAMIC = {"grid": {1: "height", 2: "width"}, "seq": {1: "length"}}


class UnbatchedPools(nn.Module):
    def forward(self, grid, seq):
        pooled = F.avg_pool3d(grid, kernel_size=(2, 2, 1), stride=(2, 2, 1))
        peaks, where = F.max_pool1d(seq, 2, return_indices=True)
        return pooled, peaks, where


def make_model():
    return UnbatchedPools()


def _inputs(height, width, length, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(4, height, width, 3, generator=g), torch.randn(5, length, generator=g)


def example_inputs():
    return _inputs(8, 6, 12, 0)


def probe_inputs():
    return [_inputs(10, 4, 9, 1), _inputs(6, 12, 15, 2)]
