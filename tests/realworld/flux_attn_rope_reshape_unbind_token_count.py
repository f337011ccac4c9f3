"""Flux (diffusers 0.35) double-stream transformer block exported with optimum for ONNX Runtime: the
attention processor splits heads with `query.unflatten(-1, (attn.heads, -1))` and `apply_rotary_emb` pairs
the channels with `x.reshape(*x.shape[:-1], -1, 2).unbind(-1)`; the rotary cos/sin come from `FluxPosEmbed`
over the `img_ids`/`txt_ids` inputs. The maintainers found the reshape's target shape hardcoded at export, so
the ONNX transformer failed in a Reshape node of `transformer_blocks.0/attn` at another image size.
Trimmed to one joint-attention block.

Source: https://github.com/huggingface/optimum-onnx/pull/42
"""
from typing import List

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "views"
FAMILY = "views"
DYNAMIC = {
    "hidden_states": {0: "batch", 1: "image_seq"},
    "encoder_hidden_states": {0: "batch", 1: "text_seq"},
    "img_ids": {0: "image_seq"},
    "txt_ids": {0: "text_seq"},
}
BLIND = "domains-27"


def get_1d_rotary_pos_embed(dim, pos, theta=10000.0, use_real=False, linear_factor=1.0, ntk_factor=1.0,
                            repeat_interleave_real=True, freqs_dtype=torch.float32):
    assert dim % 2 == 0
    if isinstance(pos, int):
        pos = torch.arange(pos)
    theta = theta * ntk_factor
    freqs = (1.0 / (theta ** (torch.arange(0, dim, 2, dtype=freqs_dtype, device=pos.device)[: (dim // 2)] / dim)) / linear_factor)
    freqs = torch.outer(pos, freqs)
    if use_real and repeat_interleave_real:
        freqs_cos = freqs.cos().repeat_interleave(2, dim=1, output_size=freqs.shape[1] * 2).float()
        freqs_sin = freqs.sin().repeat_interleave(2, dim=1, output_size=freqs.shape[1] * 2).float()
        return freqs_cos, freqs_sin
    raise NotImplementedError


class RMSNorm(nn.Module):
    def __init__(self, dim, eps: float, elementwise_affine: bool = True):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim)) if elementwise_affine else None

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        variance = hidden_states.to(torch.float32).pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.eps)
        if self.weight is not None:
            if self.weight.dtype in [torch.float16, torch.bfloat16]:
                hidden_states = hidden_states.to(self.weight.dtype)
            hidden_states = hidden_states * self.weight
        else:
            hidden_states = hidden_states.to(input_dtype)
        return hidden_states


class FluxPosEmbed(nn.Module):
    def __init__(self, theta: int, axes_dim: List[int]):
        super().__init__()
        self.theta = theta
        self.axes_dim = axes_dim

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        n_axes = ids.shape[-1]
        cos_out = []
        sin_out = []
        pos = ids.float()
        is_mps = ids.device.type == "mps"
        is_npu = ids.device.type == "npu"
        freqs_dtype = torch.float32 if (is_mps or is_npu) else torch.float64
        for i in range(n_axes):
            cos, sin = get_1d_rotary_pos_embed(
                self.axes_dim[i], pos[:, i], theta=self.theta, repeat_interleave_real=True, use_real=True, freqs_dtype=freqs_dtype,
            )
            cos_out.append(cos)
            sin_out.append(sin)
        freqs_cos = torch.cat(cos_out, dim=-1).to(ids.device)
        freqs_sin = torch.cat(sin_out, dim=-1).to(ids.device)
        return freqs_cos, freqs_sin


def apply_rotary_emb(x, freqs_cis, use_real=True, use_real_unbind_dim=-1, sequence_dim=2):
    if use_real:
        cos, sin = freqs_cis  # [S, D]
        if sequence_dim == 2:
            cos = cos[None, None, :, :]
            sin = sin[None, None, :, :]
        elif sequence_dim == 1:
            cos = cos[None, :, None, :]
            sin = sin[None, :, None, :]
        else:
            raise ValueError(f"`sequence_dim={sequence_dim}` but should be 1 or 2.")
        cos, sin = cos.to(x.device), sin.to(x.device)
        if use_real_unbind_dim == -1:
            # Used for flux, cogvideox, hunyuan-dit
            x_real, x_imag = x.reshape(*x.shape[:-1], -1, 2).unbind(-1)  # [B, S, H, D//2]
            x_rotated = torch.stack([-x_imag, x_real], dim=-1).flatten(3)
        else:
            raise ValueError(f"`use_real_unbind_dim={use_real_unbind_dim}` but should be -1 or -2.")
        out = (x.float() * cos + x_rotated.float() * sin).to(x.dtype)
        return out
    raise NotImplementedError


class FluxAttention(nn.Module):
    def __init__(self, query_dim, heads, dim_head):
        super().__init__()
        self.heads = heads
        inner = heads * dim_head
        self.to_q = nn.Linear(query_dim, inner)
        self.to_k = nn.Linear(query_dim, inner)
        self.to_v = nn.Linear(query_dim, inner)
        self.norm_q = RMSNorm(dim_head, eps=1e-6)
        self.norm_k = RMSNorm(dim_head, eps=1e-6)
        self.add_q_proj = nn.Linear(query_dim, inner)
        self.add_k_proj = nn.Linear(query_dim, inner)
        self.add_v_proj = nn.Linear(query_dim, inner)
        self.norm_added_q = RMSNorm(dim_head, eps=1e-6)
        self.norm_added_k = RMSNorm(dim_head, eps=1e-6)
        self.to_out = nn.Linear(inner, query_dim)
        self.to_add_out = nn.Linear(inner, query_dim)

    def forward(self, hidden_states, encoder_hidden_states, image_rotary_emb):
        query = self.to_q(hidden_states).unflatten(-1, (self.heads, -1))
        key = self.to_k(hidden_states).unflatten(-1, (self.heads, -1))
        value = self.to_v(hidden_states).unflatten(-1, (self.heads, -1))
        query = self.norm_q(query)
        key = self.norm_k(key)

        encoder_query = self.add_q_proj(encoder_hidden_states).unflatten(-1, (self.heads, -1))
        encoder_key = self.add_k_proj(encoder_hidden_states).unflatten(-1, (self.heads, -1))
        encoder_value = self.add_v_proj(encoder_hidden_states).unflatten(-1, (self.heads, -1))
        encoder_query = self.norm_added_q(encoder_query)
        encoder_key = self.norm_added_k(encoder_key)

        query = torch.cat([encoder_query, query], dim=1)
        key = torch.cat([encoder_key, key], dim=1)
        value = torch.cat([encoder_value, value], dim=1)

        query = apply_rotary_emb(query, image_rotary_emb, sequence_dim=1)
        key = apply_rotary_emb(key, image_rotary_emb, sequence_dim=1)

        hidden_states = F.scaled_dot_product_attention(
            query.transpose(1, 2), key.transpose(1, 2), value.transpose(1, 2)
        ).transpose(1, 2)
        hidden_states = hidden_states.flatten(2, 3)

        encoder_hidden_states, hidden_states = hidden_states.split_with_sizes(
            [encoder_hidden_states.shape[1], hidden_states.shape[1] - encoder_hidden_states.shape[1]], dim=1
        )
        return self.to_out(hidden_states), self.to_add_out(encoder_hidden_states)


class TinyFluxTransformer(nn.Module):
    def __init__(self, dim=64, heads=4, axes_dims_rope=(4, 6, 6)):
        super().__init__()
        self.pos_embed = FluxPosEmbed(theta=10000, axes_dim=list(axes_dims_rope))
        self.attn = FluxAttention(dim, heads, dim // heads)
        self.proj_out = nn.Linear(dim, dim)

    def forward(self, hidden_states, encoder_hidden_states, img_ids, txt_ids):
        ids = torch.cat((txt_ids, img_ids), dim=0)
        image_rotary_emb = self.pos_embed(ids)
        attn_output, context_attn_output = self.attn(hidden_states, encoder_hidden_states, image_rotary_emb)
        return self.proj_out(hidden_states + attn_output), encoder_hidden_states + context_attn_output


def _latent_image_ids(height, width):
    latent_image_ids = torch.zeros(height, width, 3)
    latent_image_ids[..., 1] = latent_image_ids[..., 1] + torch.arange(height)[:, None]
    latent_image_ids[..., 2] = latent_image_ids[..., 2] + torch.arange(width)[None, :]
    return latent_image_ids.reshape(height * width, 3)


def _inputs(batch, h, w, text_len):
    return (torch.randn(batch, h * w, 64), torch.randn(batch, text_len, 64),
            _latent_image_ids(h, w), torch.zeros(text_len, 3))


def make_model():
    return TinyFluxTransformer().eval()


def example_inputs():
    return _inputs(2, 8, 8, 12)


def other_inputs():
    return [_inputs(3, 6, 10, 7), _inputs(1, 12, 4, 16)]


def probe_inputs():
    return other_inputs()
