"""TripoSG's vecset VAE decodes SDF values at query points with `_decode`, a Python loop
`for i in range(0, num_points, num_chunks)` over the (dynamic) number of points that slices
`xyz_samples[:, i : i + num_chunks, :]` and threads the decoder's kv_cache between chunks; the
QtMeshEditor ONNX exporter had to pass a huge num_chunks so the traced loop runs exactly once.

Source: https://github.com/fernandotonon/QtMeshEditor/blob/4aa0ae853225f5e52a8612c8f5effa4278df8f06/scripts/export-triposg-onnx.py
"""
from typing import Optional

import torch
from torch import nn
import torch.nn.functional as F

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"points": {1: "P"}}
BLIND = "domains-70"


class FrequencyPositionalEmbedding(nn.Module):
    def __init__(self, num_freqs=8, logspace=True, input_dim=3, include_input=True, include_pi=False):
        super().__init__()
        if logspace:
            frequencies = 2.0 ** torch.arange(num_freqs, dtype=torch.float32)
        else:
            frequencies = torch.linspace(1.0, 2.0 ** (num_freqs - 1), num_freqs, dtype=torch.float32)
        if include_pi:
            frequencies *= torch.pi
        self.register_buffer("frequencies", frequencies, persistent=False)
        self.include_input = include_input
        self.num_freqs = num_freqs
        self.out_dim = input_dim * (num_freqs * 2 + 1 if include_input else num_freqs * 2)

    def forward(self, x):
        embed = (x[..., None].contiguous() * self.frequencies).view(*x.shape[:-1], -1)
        return torch.cat((x, embed.sin(), embed.cos()), dim=-1)


class DiTBlock(nn.Module):
    def __init__(self, dim, num_attention_heads, use_cross_attention=False):
        super().__init__()
        self.heads = num_attention_heads
        self.norm1 = nn.LayerNorm(dim)
        self.to_q = nn.Linear(dim, dim, bias=False)
        self.to_kv = nn.Linear(dim, dim * 2, bias=False)
        self.to_out = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, dim * 4), nn.GELU(), nn.Linear(dim * 4, dim))

    def forward(self, hidden_states, encoder_hidden_states=None):
        b, n, d = hidden_states.shape
        h = self.norm1(hidden_states)
        kv_in = h if encoder_hidden_states is None else encoder_hidden_states
        q = self.to_q(h).view(b, n, self.heads, -1).transpose(1, 2)
        k, v = self.to_kv(kv_in).view(b, kv_in.shape[1], 2, self.heads, -1).permute(2, 0, 3, 1, 4)
        attn = F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, n, d)
        hidden_states = hidden_states + self.to_out(attn)
        return hidden_states + self.ff(self.norm2(hidden_states))


class TripoSGDecoder(nn.Module):
    def __init__(self, in_channels, out_channels=1, dim=64, num_attention_heads=4, num_layers=2):
        super().__init__()
        self.blocks = nn.ModuleList(
            [DiTBlock(dim, num_attention_heads) for _ in range(num_layers)]
            + [DiTBlock(dim, num_attention_heads, use_cross_attention=True)]
        )
        self.proj_query = nn.Linear(in_channels, dim, bias=True)
        self.norm_out = nn.LayerNorm(dim)
        self.proj_out = nn.Linear(dim, out_channels, bias=True)

    def forward(self, sample, queries, kv_cache: Optional[torch.Tensor] = None):
        if kv_cache is None:
            hidden_states = sample
            for _, block in enumerate(self.blocks[:-1]):
                hidden_states = block(hidden_states)
            kv_cache = hidden_states

        q = self.proj_query(queries)
        l = self.blocks[-1](q, encoder_hidden_states=kv_cache)
        logits = self.proj_out(self.norm_out(l))
        logits = logits * -1
        return logits, kv_cache


class TripoSGVAEDecode(nn.Module):
    def __init__(self, latent_channels=16, width_decoder=64):
        super().__init__()
        self.embedder = FrequencyPositionalEmbedding(num_freqs=8, logspace=True, input_dim=3, include_pi=False)
        self.decoder = TripoSGDecoder(in_channels=self.embedder.out_dim, dim=width_decoder)
        self.post_quant = nn.Linear(latent_channels, width_decoder, bias=True)

    def _decode(self, z, sampled_points, num_chunks: int = 50000, to_cpu: bool = False, return_dict: bool = True):
        xyz_samples = sampled_points

        z = self.post_quant(z)

        num_points = xyz_samples.shape[1]
        kv_cache = None
        dec = []

        for i in range(0, num_points, num_chunks):
            queries = xyz_samples[:, i : i + num_chunks, :].to(z.device, dtype=z.dtype)
            queries = self.embedder(queries)

            z_, kv_cache = self.decoder(z, queries, kv_cache)
            dec.append(z_ if not to_cpu else z_.cpu())

        z = torch.cat(dec, dim=1)

        if not return_dict:
            return (z,)
        return {"sample": z}

    def forward(self, latents, points):
        return self._decode(latents, points, return_dict=False)[0]


def make_model():
    return TripoSGVAEDecode().eval()


def _points(p):
    return (torch.rand(1, p, 3) * 2 - 1) * 1.005


def example_inputs():
    return (torch.randn(1, 64, 16), _points(4096))


def other_inputs():
    return [(torch.randn(1, 64, 16), _points(60000)), (torch.randn(1, 64, 16), _points(777))]


def probe_inputs():
    return other_inputs()
