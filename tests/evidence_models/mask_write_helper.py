"""fairseq's `index_put(tensor, indices, value)` helper zeroes padded frames of (batch, frames,
channels) through a (batch, frames) bool mask: the legacy exporter broadcasts the mask against
the tensor without its channel axis (onnxruntime fails). Statically the helper's parameters are
unknown; the recorded run shows a bool mask, a float32 tensor and a Python int value."""

import torch
from torch import nn


def index_put(tensor, indices, value):
    tensor[indices] = value
    return tensor


class MaskWriteHelper(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 6)

    def forward(self, x, lengths):
        padding_mask = torch.arange(x.shape[1])[None, :] >= lengths[:, None]
        h = index_put(self.proj(x), padding_mask, 0)
        return h.sum(dim=1)


def example_inputs():
    return (torch.randn(2, 7, 4), torch.tensor([7, 3]))


def probe_inputs():
    return [(torch.randn(3, 5, 4), torch.tensor([2, 5, 1]))]


DYNAMIC = {"x": {0: "batch", 1: "frames"}, "lengths": {0: "batch"}}
