"""Llama 4's rotary embedding: frequencies as complex numbers (torch.polar), the query's (even,
odd) pairs viewed as complex, multiplied, and viewed as real again. ONNX has no complex tensors."""

import torch
from torch import nn


def apply_rotary_emb(x, freqs_cis):
    pairs = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    return torch.view_as_real(pairs * freqs_cis[:, :, None, :]).flatten(3).type_as(x)


class ComplexRope(nn.Module):
    def __init__(self, head_dim=8, base=10000.0):
        super().__init__()
        torch.manual_seed(0)
        self.proj = nn.Linear(16, 16)
        self.register_buffer("inv_freq", 1.0 / (base ** (torch.arange(0, head_dim, 2).float() / head_dim)))

    def forward(self, hidden):
        positions = torch.arange(hidden.shape[1], device=hidden.device)[None, :].expand(hidden.shape[0], -1)
        freqs = positions[..., None].float() * self.inv_freq
        freqs_cis = torch.polar(torch.ones_like(freqs), freqs) * 0.5
        query = self.proj(hidden).view(hidden.shape[0], hidden.shape[1], 2, 8)
        return apply_rotary_emb(query, freqs_cis.to(hidden.device))


def example_inputs():
    return (torch.randn(2, 5, 16),)
