"""Mutual nearest neighbours as a bool mask, reduced with max: `mask.max(dim=2)` gives, per row,
whether it has a match and where (LoFTR's coarse matching), `mask.amax(1)` whether a column is
matched. onnxruntime's CPU provider has no bool kernel for ArgMax or ReduceMax ("Could not find
an implementation for ArgMax(13)"). float32_compute, named by that error, reduces the mask as
uint8 0 / 1 while exporting: the same maxima at the same indices, read back as bool."""
import torch
from torch import nn


class MutualMatches(nn.Module):
    def __init__(self, threshold=0.05):
        super().__init__()
        self.threshold = threshold

    def forward(self, a, b):
        scores = torch.einsum("nlc,nsc->nls", a, b).softmax(2)
        mask = (scores > self.threshold) & (scores == scores.amax(2, keepdim=True)) & (scores == scores.amax(1, keepdim=True))
        matched, columns = mask.max(dim=2)
        return matched, columns * matched, torch.amax(mask, 1)


def make_model():
    return MutualMatches()


def _features(batch, left, right, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(batch, left, 8, generator=g), torch.randn(batch, right, 8, generator=g)


def example_inputs():
    return _features(2, 6, 9, 0)


def probe_inputs():
    return [_features(1, 11, 5, 1), _features(3, 7, 7, 2)]


DYNAMIC = {0: {0: "batch", 1: "left"}, 1: {0: "batch", 1: "right"}}
