"""ESPnet's `make_pad_mask`: `maxlen = int(lengths.max())`, then `torch.arange(0, maxlen)` compared with the lengths;
the padded features' own time size is the bound the model means.

Source: https://github.com/espnet/espnet/pull/5326
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "scalars"
DYNAMIC = {"xs": {0: "batch", 1: "time"}, "lengths": {0: "batch"}}


def make_pad_mask(lengths):
    bs = int(lengths.size(0))
    maxlen = int(lengths.max())
    seq_range = torch.arange(0, maxlen, dtype=torch.int64)
    seq_range_expand = seq_range.unsqueeze(0).expand(bs, maxlen)
    seq_length_expand = seq_range_expand.new(lengths).unsqueeze(-1)
    return seq_range_expand >= seq_length_expand


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(3, 3)

    def forward(self, xs, lengths):
        mask = make_pad_mask(lengths)
        return self.proj(xs).masked_fill(mask.unsqueeze(-1), 0.0)


def make_model():
    return Encoder()


def example_inputs():
    return (torch.randn(2, 5, 3), torch.tensor([5, 3]))


def other_inputs():
    return [(torch.randn(3, 7, 3), torch.tensor([7, 2, 6])), (torch.randn(2, 5, 3), torch.tensor([5, 1]))]


def probe_inputs():
    return other_inputs()
