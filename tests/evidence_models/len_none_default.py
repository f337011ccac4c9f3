"""Funnel Transformer's `relative_pos`: `pooled_pos` defaults to `pos` when a caller passes None.
The run saw None and tensors in the name, but past `if pooled_pos is None: pooled_pos = pos` only
tensors: `len(pooled_pos)` is the tensor's length, which the legacy exporter bakes in and
torch.export specializes."""

import torch
from torch import nn


class RelativePositions(nn.Module):
    def relative_pos(self, pos, stride, pooled_pos=None, shift=1):
        if pooled_pos is None:
            pooled_pos = pos
        num_remove = shift * len(pooled_pos)
        return pooled_pos[:1] * num_remove * stride

    def forward(self, x):
        pos = torch.arange(x.shape[1]).to(x.dtype)
        return x + self.relative_pos(pos, 1) + self.relative_pos(pos, 2, pos.flip(0), shift=2)


def example_inputs():
    return (torch.randn(2, 8),)


def probe_inputs():
    return [(torch.randn(3, 11),)]


DYNAMIC = {"x": {0: "batch", 1: "time"}}
