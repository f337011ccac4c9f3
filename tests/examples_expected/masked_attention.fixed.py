"""Multi-head self-attention over padded sequences, with a key-padding mask and a gated
feed-forward block.

Two shortcuts make it hard to export: the mask is applied only when something is padded
(`if (~mask).any():`, and an early `return` when nothing is), which is a branch on tensor
values, and the feed-forward gate is applied in place through a view of its hidden state.
The dynamo exporter refuses the data-dependent branches (GuardOnDataDependentSymNode); the
legacy exporter freezes them at export time and loses the write through the view, so its model
is wrong even on the inputs it was exported with.
"""

import torch
from torch import nn


def masked_scores(q: torch.Tensor, k: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    # skip the fill when nothing is padded
    scores = torch.where((~mask).any(), scores.masked_fill(~mask[:, None, None, :], -1e4), scores)
    return scores


class GatedFeedForward(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.up = nn.Linear(dim, 2 * dim)
        self.down = nn.Linear(2 * dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = self.up(x)
        gate = hidden[..., : hidden.shape[-1] // 2]
        hidden[..., : hidden.shape[-1] // 2].sigmoid_()
        return self.down(hidden)


class MaskedAttention(nn.Module):
    def __init__(self, dim: int = 8, heads: int = 2):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.ffn = GatedFeedForward(dim)

    def split_heads(self, t: torch.Tensor) -> torch.Tensor:
        batch, length, dim = t.shape
        return t.reshape(batch, length, self.heads, dim // self.heads).transpose(1, 2)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        q, k, v = (self.split_heads(t) for t in self.qkv(x).chunk(3, dim=-1))
        weights = torch.softmax(masked_scores(q, k, mask), dim=-1)
        attended = (weights @ v).transpose(1, 2).reshape(x.shape)
        out = self.out(attended) + self.ffn(x)
        # zero the padded positions
        return torch.where(mask.all() != 0, out, out * mask[..., None])


def make_model() -> nn.Module:
    torch.manual_seed(0)
    return MaskedAttention().eval()


def _mask(lengths, total):
    return torch.arange(total)[None, :] < torch.tensor(lengths)[:, None]


def example_inputs():
    torch.manual_seed(1)
    return (torch.randn(2, 5, 8), _mask([5, 3], 5))


def probe_inputs():
    torch.manual_seed(2)
    return [
        (torch.randn(2, 5, 8), _mask([5, 5], 5)),  # nothing padded: the other branches
        (torch.randn(3, 7, 8), _mask([7, 2, 4], 7)),  # other sizes
        (torch.randn(1, 4, 8), _mask([4], 4)),
    ]


DYNAMIC = {0: {0: "batch", 1: "length"}, 1: {0: "batch", 1: "length"}}
