"""TabDPT's length-dependent attention temperature: `beta` grows with the log of the context's length
and `F.scaled_dot_product_attention(q, k, v, scale=default_scale * beta)` gets a 0-d tensor. The op reads
it as a number: torch.export cannot decide it ("Could not guard on data-dependent expression zuf0"), and
the legacy exporter records the temperature of the export inputs' length."""
import math

import torch
import torch.nn.functional as F
from torch import nn

DYNAMIC = {"x": {0: "batch", 1: "length"}}


class ScaledAttention(nn.Module):
    def __init__(self, dim=8, heads=2):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.heads = heads
        self.register_buffer("n0", torch.tensor(4.0))

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        length = (x[0, :, 0] * 0 + 1).sum()  # the context's length, as a tensor
        beta = 1.0 + 0.5 * torch.clamp(torch.log(length / self.n0), min=0.0)
        out = F.scaled_dot_product_attention(q, k, v, scale=beta / math.sqrt(d // self.heads))
        return out.transpose(1, 2).reshape(b, n, d)


def make_model():
    torch.manual_seed(0)
    return ScaledAttention().eval()


def example_inputs():
    return (torch.randn(2, 6, 8),)


def probe_inputs():
    return [(torch.randn(3, 11, 8),), (torch.randn(1, 20, 8),)]
