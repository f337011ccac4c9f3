"""ONX530: ranges with an int and a float bound and no dtype (mmcv GeneralizedAttention's
`torch.arange(0, feat_dim / 4)` frequency table; a half-pixel `torch.arange(0.5, w)` grid). Eager
infers float32; the dynamo export writes a Range of int64 and float that onnxruntime refuses to
load. Fixed (safely: the dtype eager infers) by passing `dtype=torch.get_default_dtype()`."""
import math

import torch
from torch import nn


class PositionTable(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.dim = dim
        self.proj = nn.Linear(dim // 2, 4)

    def forward(self, x: torch.Tensor):
        feat_range = torch.arange(0, self.dim / 4)
        scale = math.log(1000.0)
        freqs = torch.exp(-scale * torch.arange(start=0, end=self.dim / 4) / (self.dim / 4)) + feat_range * 0
        centers = torch.arange(0.5, x.shape[-1])  # half-pixel centers along the width
        angles = centers[:, None] * freqs[None, :]
        table = self.proj(torch.cat((angles.sin(), angles.cos()), dim=-1))  # (width, 4)
        return x.mean(1, keepdim=True) * table.sum(-1)


def make_model():
    torch.manual_seed(0)
    return PositionTable()


def example_inputs():
    return (torch.randn(2, 3, 12),)


def probe_inputs():
    g = torch.Generator().manual_seed(1)
    return [(torch.randn(3, 3, 9, generator=g),), (torch.randn(1, 3, 20, generator=g),)]


DYNAMIC = {0: {0: "batch", 2: "width"}}
