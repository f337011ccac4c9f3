"""Phi-3-vision's CLIP vision encoder runs its attention through flash-attn, whose forward kernel is
registered as a `torch.library.custom_op` named `flash_attn::_flash_attn_forward`; building the visual
engine (torch.onnx.export of the encoder) fails with "UnsupportedOperatorError: ONNX export failed on an
operator with unrecognized namespace flash_attn::_flash_attn_forward".

Source: https://github.com/NVIDIA/TensorRT-LLM/issues/2369
"""
from typing import Optional, Tuple

import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"hidden_states": {0: "batch", 1: "num_patches"}}
BLIND = "operators-33"


# flash_attn/flash_attn_interface.py (2.6.x): the forward is a torch.library custom op. The real body calls
# the CUDA kernel flash_attn_gpu.fwd; a math reference of the same contract stands in for it on CPU.
@torch.library.custom_op("flash_attn::_flash_attn_forward", mutates_args=())
def _flash_attn_forward(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, dropout_p: float, softmax_scale: float,
    causal: bool, window_size_left: int, window_size_right: int, softcap: float,
    alibi_slopes: Optional[torch.Tensor], return_softmax: bool,
) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    scores = torch.einsum("bqhd,bkhd->bhqk", q, k) * softmax_scale
    softmax_lse = torch.logsumexp(scores, dim=-1)
    out = torch.einsum("bhqk,bkhd->bqhd", scores.softmax(dim=-1), v)
    return out, softmax_lse, torch.empty((0,), dtype=q.dtype), torch.zeros(2, dtype=torch.int64)


@torch.library.register_fake("flash_attn::_flash_attn_forward")
def _flash_attn_forward_fake(q, k, v, dropout_p, softmax_scale, causal, window_size_left,
                             window_size_right, softcap, alibi_slopes, return_softmax):
    batch_size, seqlen_q, num_heads, head_size = q.shape
    out = torch.empty_like(q)
    softmax_lse = torch.empty((batch_size, num_heads, seqlen_q), dtype=torch.float32, layout=q.layout)
    return out, softmax_lse, torch.empty((0,), dtype=q.dtype), torch.empty((2,), dtype=torch.int64)


def flash_attn_func(q, k, v, dropout_p=0.0, softmax_scale=None, causal=False, window_size=(-1, -1),
                    softcap=0.0, alibi_slopes=None, return_attn_probs=False):
    if softmax_scale is None:
        softmax_scale = q.shape[-1] ** (-0.5)
    out, softmax_lse, S_dmask, rng_state = torch.ops.flash_attn._flash_attn_forward(
        q, k, v, dropout_p, softmax_scale, causal, window_size[0], window_size[1], softcap,
        alibi_slopes, return_attn_probs and dropout_p > 0,
    )
    return out


class CLIPFlashAttention2(nn.Module):
    def __init__(self, embed_dim=64, num_heads=4):
        super().__init__()
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.k_proj = nn.Linear(embed_dim, embed_dim)
        self.v_proj = nn.Linear(embed_dim, embed_dim)
        self.q_proj = nn.Linear(embed_dim, embed_dim)
        self.out_proj = nn.Linear(embed_dim, embed_dim)

    def forward(self, hidden_states):
        bsz, q_len, _ = hidden_states.size()
        query_states = self.q_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim)
        key_states = self.k_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim)
        value_states = self.v_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim)
        attn_output = flash_attn_func(query_states, key_states, value_states, 0.0, causal=False)
        attn_output = attn_output.reshape(bsz, q_len, self.embed_dim).contiguous()
        return self.out_proj(attn_output)


class CLIPEncoderLayer(nn.Module):
    def __init__(self, embed_dim=64, intermediate_size=128):
        super().__init__()
        self.self_attn = CLIPFlashAttention2(embed_dim)
        self.layer_norm1 = nn.LayerNorm(embed_dim)
        self.fc1 = nn.Linear(embed_dim, intermediate_size)
        self.fc2 = nn.Linear(intermediate_size, embed_dim)
        self.layer_norm2 = nn.LayerNorm(embed_dim)

    def forward(self, hidden_states):
        residual = hidden_states
        hidden_states = self.self_attn(self.layer_norm1(hidden_states))
        hidden_states = residual + hidden_states
        residual = hidden_states
        hidden_states = self.fc1(self.layer_norm2(hidden_states))
        hidden_states = hidden_states * torch.sigmoid(1.702 * hidden_states)  # quick_gelu
        return residual + self.fc2(hidden_states)


def make_model():
    return CLIPEncoderLayer().eval()


def example_inputs():
    return (torch.randn(2, 17, 64),)


def other_inputs():
    return [(torch.randn(3, 26, 64),), (torch.randn(1, 10, 64),)]


def probe_inputs():
    return other_inputs()
