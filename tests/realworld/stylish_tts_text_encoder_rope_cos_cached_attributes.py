"""Stylish-TTS text encoder (Matcha-style transformer with rotary position embeddings): RotaryPositionalEmbeddings
keeps `self.cos_cached` / `self.sin_cached` as plain attributes, `_build_cache` returns early when the cached table
is already as long as the input and otherwise rebuilds it from `x.shape[0]`, and MultiHeadAttention stores
`self.attn` in forward; the commit "Updates to support TorchDynamo and exporting" removes the cache (returns the
tables instead) to get the model through TorchDynamo / ONNX export.
(einops `rearrange` calls are written as the equivalent permute/view.)

Source: https://github.com/Stylish-TTS/stylish-tts/commit/cdf557b578fab9975322180a76a077385a56b64c
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch", 1: "text_len"}, "x_lengths": {0: "batch"}}
BLIND = "domains-36"


def sequence_mask(length, max_length=None):
    if max_length is None:
        max_length = length.max()
    x = torch.arange(max_length, dtype=length.dtype, device=length.device)
    return x.unsqueeze(0) < length.unsqueeze(1)


class LayerNorm(nn.Module):
    def __init__(self, channels, eps=1e-4):
        super().__init__()
        self.channels = channels
        self.eps = eps

        self.gamma = torch.nn.Parameter(torch.ones(channels))
        self.beta = torch.nn.Parameter(torch.zeros(channels))

    def forward(self, x):
        n_dims = len(x.shape)
        mean = torch.mean(x, 1, keepdim=True)
        variance = torch.mean((x - mean) ** 2, 1, keepdim=True)

        x = (x - mean) * torch.rsqrt(variance + self.eps)

        shape = [1, -1] + [1] * (n_dims - 2)
        x = x * self.gamma.view(*shape) + self.beta.view(*shape)
        return x


class RotaryPositionalEmbeddings(nn.Module):
    def __init__(self, d: int, base: int = 10_000):
        super().__init__()

        self.base = base
        self.d = int(d)
        self.cos_cached = None
        self.sin_cached = None

    def _build_cache(self, x: torch.Tensor):
        # Return if cache is already built
        if self.cos_cached is not None and x.shape[0] <= self.cos_cached.shape[0]:
            return

        # Get sequence length
        seq_len = x.shape[0]

        theta = 1.0 / (self.base ** (torch.arange(0, self.d, 2).float() / self.d)).to(
            x.device
        )

        # Create position indexes `[0, 1, ..., seq_len - 1]`
        seq_idx = torch.arange(seq_len, device=x.device).float().to(x.device)

        idx_theta = torch.einsum("n,d->nd", seq_idx, theta)

        idx_theta2 = torch.cat([idx_theta, idx_theta], dim=1)

        # Cache them
        self.cos_cached = idx_theta2.cos()[:, None, None, :]
        self.sin_cached = idx_theta2.sin()[:, None, None, :]

    def _neg_half(self, x: torch.Tensor):
        d_2 = self.d // 2
        return torch.cat([-x[:, :, :, d_2:], x[:, :, :, :d_2]], dim=-1)

    def forward(self, x: torch.Tensor):
        # Cache $\cos$ and $\sin$ values
        x = x.permute(2, 0, 1, 3)  # rearrange(x, "b h t d -> t b h d")

        self._build_cache(x)

        x_rope, x_pass = x[..., : self.d], x[..., self.d :]

        neg_half_x = self._neg_half(x_rope)

        x_rope = (x_rope * self.cos_cached[: x.shape[0]]) + (
            neg_half_x * self.sin_cached[: x.shape[0]]
        )

        # rearrange(..., "t b h d -> b h t d")
        return torch.cat((x_rope, x_pass), dim=-1).permute(1, 2, 0, 3)


class MultiHeadAttention(nn.Module):
    def __init__(self, channels, out_channels, n_heads, p_dropout=0.0):
        super().__init__()
        assert channels % n_heads == 0

        self.channels = channels
        self.out_channels = out_channels
        self.n_heads = n_heads
        self.p_dropout = p_dropout
        self.attn = None

        self.k_channels = channels // n_heads
        self.conv_q = torch.nn.Conv1d(channels, channels, 1)
        self.conv_k = torch.nn.Conv1d(channels, channels, 1)
        self.conv_v = torch.nn.Conv1d(channels, channels, 1)

        # from https://nn.labml.ai/transformers/rope/index.html
        self.query_rotary_pe = RotaryPositionalEmbeddings(self.k_channels * 0.5)
        self.key_rotary_pe = RotaryPositionalEmbeddings(self.k_channels * 0.5)

        self.conv_o = torch.nn.Conv1d(channels, out_channels, 1)

    def forward(self, x, c, attn_mask=None):
        q = self.conv_q(x)
        k = self.conv_k(c)
        v = self.conv_v(c)

        x, self.attn = self.attention(q, k, v, mask=attn_mask)

        x = self.conv_o(x)
        return x

    def _heads(self, t):
        # rearrange(t, "b (h c) t-> b h t c", h=self.n_heads)
        b, _, length = t.shape
        return t.view(b, self.n_heads, -1, length).transpose(2, 3)

    def attention(self, query, key, value, mask=None):
        b, d, t_s, t_t = (*key.size(), query.size(2))
        query = self._heads(query)
        key = self._heads(key)
        value = self._heads(value)

        query = self.query_rotary_pe(query)
        key = self.key_rotary_pe(key)

        final_attn_mask = None
        if mask is not None:
            expanded_bool_mask = mask
            additive_external_mask = torch.zeros_like(expanded_bool_mask, dtype=query.dtype)
            additive_external_mask.masked_fill_(~(expanded_bool_mask.to(bool)), -1e4)
            final_attn_mask = additive_external_mask
        output = F.scaled_dot_product_attention(
            query, key, value, attn_mask=final_attn_mask,
            dropout_p=self.p_dropout if self.training else 0.0, is_causal=False,
        )

        output = output.transpose(2, 3).contiguous().view(b, d, t_t)
        # p_attn is not necessary in practise
        return output, None


class FFN(nn.Module):
    def __init__(self, in_channels, out_channels, filter_channels, kernel_size):
        super().__init__()
        self.conv_1 = torch.nn.Conv1d(in_channels, filter_channels, kernel_size, padding=kernel_size // 2)
        self.conv_2 = torch.nn.Conv1d(filter_channels, out_channels, kernel_size, padding=kernel_size // 2)

    def forward(self, x, x_mask):
        x = self.conv_1(x * x_mask)
        x = torch.relu(x)
        x = self.conv_2(x * x_mask)
        return x * x_mask


class Encoder(nn.Module):
    def __init__(self, hidden_channels, filter_channels, n_heads, n_layers, kernel_size=1):
        super().__init__()
        self.n_layers = n_layers
        self.attn_layers = torch.nn.ModuleList()
        self.norm_layers_1 = torch.nn.ModuleList()
        self.ffn_layers = torch.nn.ModuleList()
        self.norm_layers_2 = torch.nn.ModuleList()
        for _ in range(self.n_layers):
            self.attn_layers.append(MultiHeadAttention(hidden_channels, hidden_channels, n_heads))
            self.norm_layers_1.append(LayerNorm(hidden_channels))
            self.ffn_layers.append(FFN(hidden_channels, hidden_channels, filter_channels, kernel_size))
            self.norm_layers_2.append(LayerNorm(hidden_channels))

    def forward(self, x, x_mask):
        attn_mask = x_mask.unsqueeze(2) * x_mask.unsqueeze(-1)
        for i in range(self.n_layers):
            x = x * x_mask
            y = self.attn_layers[i](x, x, attn_mask)
            x = self.norm_layers_1[i](x + y)
            y = self.ffn_layers[i](x, x_mask)
            x = self.norm_layers_2[i](x + y)
        x = x * x_mask
        return x


class TextEncoder(nn.Module):
    def __init__(self, tokens=60, hidden_dim=64, filter_channels=128, heads=2, layers=2, inter_dim=32):
        super().__init__()
        self.n_channels = hidden_dim
        self.emb = torch.nn.Embedding(tokens, self.n_channels)
        torch.nn.init.normal_(self.emb.weight, 0.0, self.n_channels**-0.5)
        self.encoder = Encoder(self.n_channels, filter_channels, heads, layers, kernel_size=3)
        self.proj_m = torch.nn.Conv1d(self.n_channels, inter_dim, 1)

    def forward(self, x, x_lengths):
        x = self.emb(x) * math.sqrt(self.n_channels)
        x = torch.transpose(x, 1, -1)
        x_mask = torch.unsqueeze(sequence_mask(x_lengths, x.size(2)), 1).to(x.dtype)

        x = self.encoder(x, x_mask)
        mu = self.proj_m(x) * x_mask

        return mu, x, x_mask


def make_model():
    return TextEncoder().eval()


def _inputs(batch, length):
    lengths = torch.randint(length // 2, length + 1, (batch,))
    lengths[0] = length
    return (torch.randint(0, 60, (batch, length)), lengths)


def example_inputs():
    return _inputs(2, 17)


def other_inputs():
    return [_inputs(3, 40), _inputs(1, 9)]


def probe_inputs():
    return other_inputs()
