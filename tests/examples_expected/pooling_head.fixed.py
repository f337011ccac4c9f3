"""A speaker-embedding style pooling head over variable-length frame sequences.

Frames past each sequence's length are masked out, the sum is scaled by sqrt(T), a coarse
view averages groups of four frames, and both are normalized by the larger of their peaks.
`math.sqrt(T)` of the dynamic sequence length makes the dynamo exporter fail; the legacy
exporter records sqrt(T), floor(T / 4), the batch size and the winner of `max()` as constants.
"""

import torch
from torch import nn


def length_mask(lengths: torch.Tensor, steps) -> torch.Tensor:
    return torch.arange(steps)[None, :] < lengths[:, None]


class GroupedFrames(nn.Module):
    """Averages consecutive groups of four frames, dropping the incomplete last group."""

    def forward(self, frames: torch.Tensor) -> torch.Tensor:
        groups = frames.shape[1] // 4
        kept = frames[:, : groups * 4]
        return kept.reshape(frames.shape[0], groups, 4, -1).mean(2)


class PoolingHead(nn.Module):
    def __init__(self, dim: int = 6):
        super().__init__()
        self.project = nn.Linear(dim, dim)
        self.coarse = GroupedFrames()

    def forward(self, frames: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        steps = frames.shape[1]
        hidden = torch.tanh(self.project(frames))
        mask = length_mask(lengths, steps)
        pooled = (hidden * mask[..., None]).sum(1) / steps ** 0.5
        coarse = self.coarse(hidden).amax(1)
        peak = torch.maximum(pooled.abs().max(), coarse.abs().max())
        return torch.cat([pooled / peak, coarse / peak], dim=-1)


def make_model() -> nn.Module:
    torch.manual_seed(0)
    return PoolingHead().eval()


def _inputs(seed: int, batch: int, steps: int, lengths: list[int]):
    frames = torch.randn(batch, steps, 6, generator=torch.Generator().manual_seed(seed))
    return frames, torch.tensor(lengths)


def example_inputs():
    return _inputs(0, 2, 12, [12, 7])


def probe_inputs():
    return [
        _inputs(1, 2, 12, [5, 9]),  # other values
        _inputs(2, 3, 19, [19, 4, 11]),  # other batch and length
        _inputs(3, 1, 9, [9]),
    ]


DYNAMIC = {0: {0: "batch", 1: "steps"}, 1: {0: "batch"}}
