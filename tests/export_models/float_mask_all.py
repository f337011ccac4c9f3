"""A float padding mask reduced with `.all(1)` (Qwen-Audio's encoder: `padding_mask.all(1)` of a mask
cast to the weights' dtype): the legacy exporter writes Not on the float tensor, which ONNX
defines on bool only, and onnxruntime refuses the model on load; the all_nonzero repair, named by
that error, reduces `mask != 0` while the legacy exporter traces."""
import torch
from torch import nn


class MaskedFrames(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x, padding_mask):
        padded = padding_mask.to(self.proj.weight.dtype).view(x.shape[0], 2, -1).all(1)
        return self.proj(x).masked_fill(padded[..., None], 0.0)


def make_model():
    torch.manual_seed(0)
    return MaskedFrames()


def _inputs(batch, frames, lengths):
    mask = torch.ones(batch, 2 * frames)
    for row, length in enumerate(lengths):
        mask[row, :length] = 0
    return torch.randn(batch, frames, 4), mask


def example_inputs():
    return _inputs(2, 5, [3, 9])


def probe_inputs():
    return [_inputs(3, 7, [1, 12, 6]), _inputs(1, 4, [8])]


DYNAMIC = {0: {0: "batch", 1: "frames"}, 1: {0: "batch", 1: "frames2"}}
