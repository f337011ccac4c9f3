"""ONX609 on a cache kept when large enough: ESPnet's relative positional encoding keeps
`self.pe` while it covers the input (`if self.pe.size(1) >= x.size(1) * 2 - 1: return`) and
rebuilds it below otherwise; both exporters keep the table the example (or __init__) left."""
import math

import torch
from torch import nn


class RelPositionalEncoding(nn.Module):
    def __init__(self, d_model=8, max_len=16):
        super().__init__()
        self.d_model = d_model
        self.pe = None
        self.extend_pe(torch.zeros(1, max_len))

    def extend_pe(self, x):
        if self.pe is not None:
            if self.pe.size(1) >= x.size(1) * 2 - 1:
                return
        position = torch.arange(0, x.size(1), dtype=torch.float32).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, self.d_model, 2, dtype=torch.float32) * -(math.log(10000.0) / self.d_model))
        positive = torch.cat([torch.sin(position * div_term), torch.cos(position * div_term)], -1)
        negative = torch.cat([torch.sin(-1 * position * div_term), torch.cos(-1 * position * div_term)], -1)
        self.pe = torch.cat([torch.flip(positive, [0]), negative[1:]], 0).unsqueeze(0)

    def forward(self, x):
        self.extend_pe(x)
        center = self.pe.size(1) // 2
        return x + 1, self.pe[:, center - x.size(1) + 1 : center + x.size(1)]


def make_model():
    return RelPositionalEncoding()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(2, 10, 8),)


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(3, 25, 8),), (torch.randn(1, 4, 8),)]


DYNAMIC = {0: {0: "b", 1: "t"}}
