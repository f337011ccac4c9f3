"""ONX402 on `.is_integer()`: fairseq's pad_to_multiple computes `m = tsz / multiple` and returns
early when `m.is_integer()`. While the legacy exporter traces, `tsz` is a tensor and has no
`is_integer` (the export fails); torch.export specializes the float test to the export-time
length. Fixed (unsafe: `multiple` is a parameter nothing proves an int) by `tsz % multiple == 0`
and the integer ceiling. The crop back, `if pad_length > 0: x = x[:, :-pad_length]`, is ONX608's:
a slice to `-0` is empty, so it becomes `x[:, :x.shape[1] - pad_length]`, always."""
import math

import torch
import torch.nn.functional as F
from torch import nn


def pad_to_multiple(x, multiple, dim=-1, value=0):
    if x is None:
        return None, 0
    tsz = x.size(dim)
    m = tsz / multiple
    remainder = math.ceil(m) * multiple - tsz
    if m.is_integer():
        return x, 0
    pad_offset = (0,) * (-1 - dim) * 2
    return F.pad(x, (*pad_offset, 0, remainder), value=value), remainder


class ChunkedEncoder(nn.Module):
    def __init__(self, dim=8, multiple=4):
        super().__init__()
        self.required_seq_len_multiple = multiple
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        x, pad_length = pad_to_multiple(x, self.required_seq_len_multiple, dim=-2)
        chunks = x.view(x.size(0), -1, self.required_seq_len_multiple, x.size(2))
        pooled = chunks.mean(2, keepdim=True).expand_as(chunks).reshape(x.shape)
        x = self.proj(x + pooled)
        if pad_length > 0:
            x = x[:, :-pad_length]
        return x


def make_model():
    torch.manual_seed(0)
    return ChunkedEncoder()


def example_inputs():
    return (torch.randn(2, 10, 8),)


def probe_inputs():
    return [(torch.randn(1, 12, 8),), (torch.randn(3, 7, 8),)]


DYNAMIC = {0: {0: "batch", 1: "time"}}
