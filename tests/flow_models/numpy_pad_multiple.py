"""ONX402 on fbcnn's pad to a multiple of 8 written as NumPy float arithmetic under one `int()`:
`int(np.ceil(h / 8) * 8 - h)`. The legacy exporter freezes the `int()` (the replication pad keeps
the export-time amounts) and torch.export specializes the size. Fixed by the integer ceiling,
`(h + 7) // 8 * 8 - h`, with the `int()` dropped: the same integer, symbolic in both exporters."""
import numpy as np
import torch
from torch import nn


class PadToMultiple(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 3, 3, padding=1)

    def forward(self, x):
        h, w = x.size()[-2:]
        bottom = int(np.ceil(h / 8) * 8 - h)
        right = int(np.ceil(w / 8) * 8 - w)
        x = nn.ReplicationPad2d((0, right, 0, bottom))(x)
        return self.conv(x)[..., :h, :w]


def make_model():
    torch.manual_seed(0)  # the inputs are drawn after it
    return PadToMultiple()


def example_inputs():
    return (torch.randn(1, 3, 21, 30),)


def probe_inputs():
    return [(torch.randn(2, 3, 16, 37),), (torch.randn(1, 3, 41, 24),)]


DYNAMIC = {0: {0: "b", 2: "h", 3: "w"}}
