"""TabDPT (Layer 6) in-context tabular model: each TransformerEncoderLayer computes a context-length
dependent attention temperature `beta = self.get_scale_param(eval_pos, ...)` (a 0-dim tensor built with
`torch.as_tensor(eval_pos)`, where `eval_pos = y_src.shape[0]`) and passes
`scale=default_scale * beta` to `F.scaled_dot_product_attention`. The anofox-tabfm export tool reports
that `scale=` must be a concrete Python float, so torch.export guards on it and the export dies with
GuardOnDataDependentSymNode (and that `as_tensor(eval_pos)` otherwise bakes the context length).

Source: https://github.com/DataZooDE/anofox-tabfm/blob/2b46f22485db1d34cf2600b4cfde0048af45328d/tools/export_tabdpt/src/export_tabdpt/tabdpt_patches.py
"""
import math

import torch
from torch import nn
import torch.nn.functional as F

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {"x_src": {0: "rows"}, "y_src": {0: "train_size"}}
BLIND = "domains-50"


class RMSNorm(nn.Module):
    def __init__(self, d_model: int, eps: float = 1e-8):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        variance = x.float().pow(2).mean(-1, keepdim=True)
        return (x * torch.rsqrt(variance + self.eps)).to(x.dtype) * self.weight


class TransformerEncoderLayer(nn.Module):
    def __init__(self, embed_dim: int, num_heads: int, ff_dim: int, base_len: int, max_len: int,
                 y_encoder_dim: int) -> None:
        super().__init__()
        self.embed_dim = embed_dim
        self.head_dim = embed_dim // num_heads
        self.num_heads = num_heads
        self.q_proj = nn.Linear(embed_dim, embed_dim, bias=False)
        self.q_gate = nn.Linear(embed_dim, num_heads, bias=False)
        self.k_proj = nn.Linear(embed_dim, embed_dim, bias=False)
        self.v_proj = nn.Linear(embed_dim + y_encoder_dim, embed_dim, bias=False)
        self.out_proj = nn.Linear(embed_dim, embed_dim, bias=False)
        self.attn_norm = nn.LayerNorm(embed_dim)
        self.ff_norm = nn.LayerNorm(embed_dim)
        self.ff = nn.Sequential(nn.Linear(embed_dim, ff_dim), nn.SiLU(), nn.Linear(ff_dim, embed_dim))
        self.q_norm = RMSNorm(self.head_dim)
        self.k_norm = RMSNorm(self.head_dim)
        self.disable_attention_scaling = base_len == max_len
        dk = float(self.head_dim)
        self.register_buffer("n0", torch.tensor(float(base_len)))
        self.register_buffer("max_len_f", torch.tensor(float(max_len)))
        self.register_buffer("kappa", torch.tensor((math.sqrt(dk) - 1.0) / math.log(max_len / base_len)))

    def get_scale_param(self, eval_pos: int, *, device, dtype) -> torch.Tensor:
        if self.disable_attention_scaling:
            return torch.tensor(1.0, device=device, dtype=dtype)
        n = torch.as_tensor(eval_pos, device=device, dtype=dtype)
        n = torch.minimum(n, self.max_len_f.to(dtype))
        beta = 1.0 + self.kappa.to(dtype) * torch.clamp(torch.log(n / self.n0.to(dtype)), min=0.0)
        return beta

    def forward(self, x: torch.Tensor, y: torch.Tensor, eval_pos: int) -> torch.Tensor:
        x = x.transpose(0, 1)
        y = y.transpose(0, 1)
        B, L, _ = x.size()

        h = self.attn_norm(x)
        q = self.q_proj(h)
        gate = torch.sigmoid(self.q_gate(q))
        k = self.k_proj(h[:, :eval_pos])

        h_ctx = h[:, :eval_pos]
        v_in = torch.cat([h_ctx, y], dim=-1)
        v = self.v_proj(v_in)

        q = q.view(B, L, self.num_heads, self.head_dim).transpose(1, 2)
        k = k.view(B, eval_pos, self.num_heads, self.head_dim).transpose(1, 2)
        v = v.view(B, eval_pos, self.num_heads, self.head_dim).transpose(1, 2)

        q, k = self.q_norm(q), self.k_norm(k)
        beta = self.get_scale_param(eval_pos, device=q.device, dtype=q.dtype)
        default_scale = 1.0 / math.sqrt(self.head_dim)
        custom_scale = default_scale * beta

        attn = F.scaled_dot_product_attention(q, k, v, scale=custom_scale).transpose(1, 2)
        attn = attn * gate.unsqueeze(-1)
        attn = self.out_proj(attn.reshape(B, L, self.num_heads * self.head_dim))
        residual = attn + self.ff(self.ff_norm(x + attn))
        return residual.transpose(0, 1)


class TabDPTModel(nn.Module):
    def __init__(self, num_features=6, embed_dim=32, num_heads=4, n_out=3, nlayers=2):
        super().__init__()
        self.x_encoder = nn.Linear(num_features, embed_dim)
        self.y_encoder = nn.Linear(1, 8)
        self.transformer_encoder = nn.ModuleList(
            [TransformerEncoderLayer(embed_dim, num_heads, 64, base_len=4, max_len=1024, y_encoder_dim=8)
             for _ in range(nlayers)])
        self.head = nn.Linear(embed_dim, n_out)

    def forward(self, x_src: torch.Tensor, y_src: torch.Tensor) -> torch.Tensor:
        # x_src: (T, B, F), y_src: (eval_pos, B)
        eval_pos = y_src.shape[0]
        src = self.x_encoder(x_src)
        y_emb = self.y_encoder(y_src.unsqueeze(-1))
        for layer in self.transformer_encoder:
            residual = layer(src, y_emb, eval_pos)
            src = src + residual
        pred = self.head(src[eval_pos:])
        return pred.transpose(0, 1)


def make_model():
    return TabDPTModel()


def example_inputs():
    return (torch.randn(24, 1, 6), torch.randn(16, 1))


def other_inputs():
    return [(torch.randn(40, 1, 6), torch.randn(30, 1)), (torch.randn(9, 1, 6), torch.randn(5, 1))]


def probe_inputs():
    return other_inputs()
