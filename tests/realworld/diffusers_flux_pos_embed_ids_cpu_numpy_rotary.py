"""Diffusers FluxTransformer2DModel's `FluxPosEmbed` before the rotary refactor: the text+image position ids are
moved to host NumPy in forward (`pos = ids.squeeze().float().cpu().numpy()`) and each axis goes through
`get_1d_rotary_pos_embed`, which rebuilds the positions with `torch.from_numpy(pos)`. The PR moves this off the CPU
(positions stay torch tensors) so the rotary table is computed on device inside the traced graph.

Source: https://github.com/huggingface/diffusers/pull/9307
"""
from typing import List, Union

import numpy as np
import torch
from torch import nn

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {
    "hidden_states": {1: "img_tokens"},
    "encoder_hidden_states": {1: "txt_tokens"},
    "txt_ids": {1: "txt_tokens"},
    "img_ids": {1: "img_tokens"},
}
BLIND = "domains-56"


def get_1d_rotary_pos_embed(
    dim: int,
    pos: Union[np.ndarray, int],
    theta: float = 10000.0,
    use_real=False,
    linear_factor=1.0,
    ntk_factor=1.0,
    repeat_interleave_real=True,
    freqs_dtype=torch.float32,  #  torch.float32, torch.float64 (flux)
):
    assert dim % 2 == 0

    if isinstance(pos, int):
        pos = np.arange(pos)
    theta = theta * ntk_factor
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=freqs_dtype)[: (dim // 2)] / dim)) / linear_factor  # [D/2]
    t = torch.from_numpy(pos).to(freqs.device)  # type: ignore  # [S]
    freqs = torch.outer(t, freqs)  # type: ignore   # [S, D/2]
    if use_real and repeat_interleave_real:
        # flux, hunyuan-dit, cogvideox
        freqs_cos = freqs.cos().repeat_interleave(2, dim=1).float()  # [S, D]
        freqs_sin = freqs.sin().repeat_interleave(2, dim=1).float()  # [S, D]
        return freqs_cos, freqs_sin
    else:
        freqs_cos = torch.cat([freqs.cos(), freqs.cos()], dim=-1).float()  # [S, D]
        freqs_sin = torch.cat([freqs.sin(), freqs.sin()], dim=-1).float()  # [S, D]
        return freqs_cos, freqs_sin


def apply_rotary_emb(x, freqs_cis):
    cos, sin = freqs_cis  # [S, D]
    cos = cos[None, None]
    sin = sin[None, None]
    x_real, x_imag = x.reshape(*x.shape[:-1], -1, 2).unbind(-1)  # [B, S, H, D//2]
    x_rotated = torch.stack([-x_imag, x_real], dim=-1).flatten(3)
    return (x.float() * cos + x_rotated.float() * sin).to(x.dtype)


class FluxPosEmbed(nn.Module):
    # modified from https://github.com/black-forest-labs/flux/blob/c00d7c60b085fce8058b9df845e036090873f2ce/src/flux/modules/layers.py#L11
    def __init__(self, theta: int, axes_dim: List[int]):
        super().__init__()
        self.theta = theta
        self.axes_dim = axes_dim

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        n_axes = ids.shape[-1]
        cos_out = []
        sin_out = []
        pos = ids.squeeze().float().cpu().numpy()
        is_mps = ids.device.type == "mps"
        freqs_dtype = torch.float32 if is_mps else torch.float64
        for i in range(n_axes):
            cos, sin = get_1d_rotary_pos_embed(
                self.axes_dim[i], pos[:, i], repeat_interleave_real=True, use_real=True, freqs_dtype=freqs_dtype
            )
            cos_out.append(cos)
            sin_out.append(sin)
        freqs_cos = torch.cat(cos_out, dim=-1).to(ids.device)
        freqs_sin = torch.cat(sin_out, dim=-1).to(ids.device)
        return freqs_cos, freqs_sin


class TinyFluxAttentionStem(nn.Module):
    """Start of FluxTransformer2DModel.forward plus the first joint attention's q/k with the rotary embedding."""

    def __init__(self, in_channels=16, joint_attention_dim=24, inner_dim=32, heads=2, axes_dims_rope=(4, 6, 6)):
        super().__init__()
        self.heads = heads
        self.pos_embed = FluxPosEmbed(theta=10000, axes_dim=list(axes_dims_rope))
        self.x_embedder = nn.Linear(in_channels, inner_dim)
        self.context_embedder = nn.Linear(joint_attention_dim, inner_dim)
        self.to_q = nn.Linear(inner_dim, inner_dim)
        self.to_k = nn.Linear(inner_dim, inner_dim)

    def forward(self, hidden_states, encoder_hidden_states, txt_ids, img_ids):
        hidden_states = self.x_embedder(hidden_states)
        encoder_hidden_states = self.context_embedder(encoder_hidden_states)

        ids = torch.cat((txt_ids, img_ids), dim=1)
        image_rotary_emb = self.pos_embed(ids)

        x = torch.cat([encoder_hidden_states, hidden_states], dim=1)
        batch_size = x.shape[0]
        query = self.to_q(x).view(batch_size, -1, self.heads, x.shape[-1] // self.heads).transpose(1, 2)
        key = self.to_k(x).view(batch_size, -1, self.heads, x.shape[-1] // self.heads).transpose(1, 2)
        query = apply_rotary_emb(query, image_rotary_emb)
        key = apply_rotary_emb(key, image_rotary_emb)
        return query, key


def _latent_image_ids(height, width):
    latent_image_ids = torch.zeros(height, width, 3)
    latent_image_ids[..., 1] = latent_image_ids[..., 1] + torch.arange(height)[:, None]
    latent_image_ids[..., 2] = latent_image_ids[..., 2] + torch.arange(width)[None, :]
    return latent_image_ids.reshape(1, height * width, 3)


def _inputs(height, width, txt_len):
    return (
        torch.randn(1, height * width, 16),
        torch.randn(1, txt_len, 24),
        torch.zeros(1, txt_len, 3),
        _latent_image_ids(height, width),
    )


def make_model():
    return TinyFluxAttentionStem().eval()


def example_inputs():
    return _inputs(4, 6, 7)


def other_inputs():
    return [_inputs(6, 6, 10), _inputs(3, 8, 5)]


def probe_inputs():
    return other_inputs()
