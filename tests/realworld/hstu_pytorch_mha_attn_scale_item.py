"""HSTU (generative-recommenders) PyTorch attention: `pytorch_hstu_mha` turns a 0-dim `attn_scale` tensor
into a Python float with `attn_scale = attn_scale.item()` before `F.silu(qk_attn) * attn_scale`; the commit
"Make generative_recommenders ops compatible with make_fx tracing" drops the `.item()` so the scale stays a
traced tensor (the float is otherwise burnt into the traced graph / an unbacked data-dependent scalar).

Source: https://github.com/meta-recsys/generative-recommenders/commit/59d0859bc4be03ee2df585fe1974186a5227cd1c
"""
from typing import Optional

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {"x": {0: "batch", 1: "seq"}}
BLIND = "domains-56"


def pytorch_hstu_mha(
    max_seq_len: int,
    alpha: float,
    q: torch.Tensor,  # [B, H, N, A] (already padded; fbgemm jagged_to_padded_dense left out)
    k: torch.Tensor,
    v: torch.Tensor,  # [B, H, N, V]
    causal: bool = True,
    attn_scale: Optional[torch.Tensor] = None,
) -> torch.Tensor:
    qk_attn = torch.einsum("bhxa,bhya->bhxy", q, k) * alpha
    if attn_scale is not None:
        if attn_scale.ndim > 0:
            attn_scale = attn_scale.unsqueeze(1).to(qk_attn.dtype)
        else:
            # pyre-ignore[9]
            attn_scale = attn_scale.item()

        qk_attn = F.silu(qk_attn) * attn_scale
    else:
        qk_attn = F.silu(qk_attn) / max_seq_len
    # (the causal / length mask from _get_valid_attn_mask is trimmed here)
    attn_dense = torch.einsum("bhxd,bhdv->bhxv", qk_attn, v)  # [B, H, N, V]
    return attn_dense


class STULayer(nn.Module):
    def __init__(self, embedding_dim=32, num_heads=2, attention_dim=8, hidden_dim=8):
        super().__init__()
        self.H, self.A, self.V = num_heads, attention_dim, hidden_dim
        self.uvqk = nn.Linear(embedding_dim, (hidden_dim * 2 + attention_dim * 2) * num_heads)
        self.out = nn.Linear(hidden_dim * num_heads, embedding_dim)
        self.alpha = 1.0 / attention_dim ** 0.5

    def forward(self, x, attn_scale):
        B, N, _ = x.shape
        u, v, q, k = torch.split(
            F.silu(self.uvqk(x)),
            [self.V * self.H, self.V * self.H, self.A * self.H, self.A * self.H],
            dim=-1,
        )
        q = q.view(B, N, self.H, self.A).transpose(1, 2)
        k = k.view(B, N, self.H, self.A).transpose(1, 2)
        v = v.view(B, N, self.H, self.V).transpose(1, 2)
        attn = pytorch_hstu_mha(
            max_seq_len=N, alpha=self.alpha, q=q, k=k, v=v,
            attn_scale=attn_scale,
        )
        attn = attn.transpose(1, 2).reshape(B, N, self.H * self.V)
        return x + self.out(u * F.layer_norm(attn, [self.H * self.V]))


def make_model():
    return STULayer().eval()


def example_inputs():
    return (torch.randn(2, 12, 32), torch.tensor(1.0 / 12))


def other_inputs():
    return [
        (torch.randn(3, 20, 32), torch.tensor(1.0 / 20)),
        (torch.randn(1, 9, 32), torch.tensor(0.5)),
    ]


def probe_inputs():
    return other_inputs()
