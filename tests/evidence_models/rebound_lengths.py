"""ESPnet's `make_pad_mask`: the lengths parameter is rebound to its own list under a type test
(callers elsewhere may pass a list), so statically `lengths.tolist()` is of an unknown value and
the name holds a tensor and a list. The run saw a tensor passed: the read before the rebinding
is that tensor."""

import torch
from torch import nn


def make_pad_mask(lengths):
    if not isinstance(lengths, list):
        lengths = lengths.tolist()
    maxlen = int(max(lengths))
    seq_range = torch.arange(0, maxlen, dtype=torch.int64)
    return seq_range.unsqueeze(0) >= seq_range.new(lengths).unsqueeze(-1)


class Masker(nn.Module):
    def forward(self, x, lengths):
        return x.masked_fill(make_pad_mask(lengths).unsqueeze(-1), 0.0)


def make_model():
    return Masker()


def example_inputs():
    return (torch.randn(2, 5, 3), torch.tensor([5, 3]))
