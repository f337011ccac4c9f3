"""SAM2 video memory attention exported on its own (SAM2Export): the wrapper takes the number of cached object
pointers as an input tensor, `num_obj_ptr_tokens = num_obj_ptr[0]*4`, and SAM2's memory-attention layer branches on
`if num_k_exclude_rope > 0` and rotates only `k[:, :, :num_k_rope]` with `num_k_rope = k.size(-2) - num_k_exclude_rope`,
so the rotary slice length comes from a tensor value; the follow-up commit replaces it by `memory_0.shape[0]*4`.
SAM2 is shrunk to one layer on an 8x8 feature map (d_model 64, memory dim 16), with the repo's matrix rotary encoding.

Source: https://github.com/Aimol-l/SAM2Export/commit/a533d255d9d60190c38c50a1d13f7ab37ca611ba
"""
import math

import torch
import torch.nn.functional as F
from torch import nn, Tensor

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"memory_0": {0: "num_ptr"}, "memory_1": {0: "num_mem"}, "memory_pos_embed": {0: "mem_len"}}
BLIND = "domains-46"

FEAT = 8  # 64x64 in SAM2


def get_rotation_matrices(dim, end_x, end_y, theta=10000.0, device=None, dtype=None):
    powers = torch.linspace(0, 1, 1 + (dim // 4), device=device, dtype=dtype)[:-1]
    base_angles = torch.pow(theta, -powers)
    end_x, end_y = int(end_x), int(end_y)
    x_mults = torch.arange(end_x, device=device, dtype=dtype).repeat(end_y)
    y_mults = torch.arange(end_y, device=device, dtype=dtype).repeat_interleave(end_x)
    angles_xy = (torch.outer(mults, base_angles) for mults in (x_mults, y_mults))
    rotmats_list = []
    for angles in angles_xy:
        sterm, cterm = torch.sin(-angles), torch.cos(-angles)
        rotmat = torch.stack([torch.stack([cterm, -sterm], dim=-1), torch.stack([sterm, cterm], dim=-1)], dim=-1)
        rotmats_list.append(rotmat)
    return torch.cat(rotmats_list, dim=1).unsqueeze(0).unsqueeze(0)


def apply_rotary_matenc(xq, xk, rotmats, repeat_freqs_k=False):
    bq, hq, nq, cq = xq.shape
    bk, hk, nk, ck = xk.shape
    q_out = torch.matmul(rotmats, xq.reshape(bq, hq, nq, cq // 2, 2, 1)).flatten(3)
    k_rotmat = rotmats.repeat(1, 1, nk // nq, 1, 1, 1) if repeat_freqs_k else rotmats
    k_out = torch.matmul(k_rotmat, xk.reshape(bk, hk, nk, ck // 2, 2, 1)).flatten(3)
    return q_out, k_out


class RoPEAttention(nn.Module):
    def __init__(self, embedding_dim, num_heads=1, kv_in_dim=None, rope_theta=10000.0, rope_k_repeat=False):
        super().__init__()
        kv_in_dim = kv_in_dim if kv_in_dim is not None else embedding_dim
        self.internal_dim, self.num_heads = embedding_dim, num_heads
        self.q_proj = nn.Linear(embedding_dim, self.internal_dim)
        self.k_proj = nn.Linear(kv_in_dim, self.internal_dim)
        self.v_proj = nn.Linear(kv_in_dim, self.internal_dim)
        self.out_proj = nn.Linear(self.internal_dim, embedding_dim)
        self.rope_k_repeat, self.rope_theta = rope_k_repeat, rope_theta
        self.rotmats = get_rotation_matrices(dim=self.internal_dim // num_heads, end_x=FEAT, end_y=FEAT, theta=rope_theta)

    def _separate_heads(self, x, num_heads):
        b, n, c = x.shape
        return x.reshape(b, n, num_heads, c // num_heads).transpose(1, 2)

    def forward(self, q: Tensor, k: Tensor, v: Tensor, num_k_exclude_rope: int = 0) -> Tensor:
        q = self._separate_heads(self.q_proj(q), self.num_heads)
        k = self._separate_heads(self.k_proj(k), self.num_heads)
        v = self._separate_heads(self.v_proj(v), self.num_heads)
        w = h = math.sqrt(q.shape[-2])
        if self.rotmats.shape[2] != q.shape[-2]:
            self.rotmats = get_rotation_matrices(dim=self.internal_dim // self.num_heads, end_x=w, end_y=h, theta=self.rope_theta)
        num_k_rope = k.size(-2) - num_k_exclude_rope
        q, k[:, :, :num_k_rope] = apply_rotary_matenc(q, k[:, :, :num_k_rope], rotmats=self.rotmats, repeat_freqs_k=self.rope_k_repeat)
        out = F.scaled_dot_product_attention(q, k, v)
        b, nh, n, c = out.shape
        return self.out_proj(out.transpose(1, 2).reshape(b, n, nh * c))


class MemoryAttentionLayer(nn.Module):
    def __init__(self, d_model=64, mem_dim=16):
        super().__init__()
        self.self_attn = RoPEAttention(d_model)
        self.cross_attn_image = RoPEAttention(d_model, kv_in_dim=mem_dim, rope_k_repeat=True)
        self.norm1, self.norm2, self.norm3 = nn.LayerNorm(d_model), nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        self.linear1, self.linear2 = nn.Linear(d_model, 128), nn.Linear(128, d_model)

    def _forward_ca(self, tgt, memory, query_pos, pos, num_k_exclude_rope=0):
        kwds = {}
        if num_k_exclude_rope > 0:
            assert isinstance(self.cross_attn_image, RoPEAttention)
            kwds = {"num_k_exclude_rope": num_k_exclude_rope}
        tgt2 = self.norm2(tgt)
        tgt2 = self.cross_attn_image(q=tgt2 + query_pos, k=memory + pos, v=memory, **kwds)
        return tgt + tgt2

    def forward(self, tgt, memory, pos=None, query_pos=None, num_k_exclude_rope: int = 0):
        tgt2 = self.norm1(tgt)
        tgt = tgt + self.self_attn(tgt2, tgt2, v=tgt2)
        tgt = self._forward_ca(tgt, memory, query_pos, pos, num_k_exclude_rope)
        return tgt + self.linear2(F.relu(self.linear1(self.norm3(tgt))))


class MemoryAttention(nn.Module):
    def __init__(self, d_model=64, mem_dim=16):
        super().__init__()
        self.layers = nn.ModuleList([MemoryAttentionLayer(d_model, mem_dim)])
        self.norm = nn.LayerNorm(d_model)

    def forward(self, curr, memory, curr_pos=None, memory_pos=None, num_obj_ptr_tokens: int = 0):
        output = curr + 0.1 * curr_pos
        output, curr_pos = output.transpose(0, 1), curr_pos.transpose(0, 1)  # batch first
        memory, memory_pos = memory.transpose(0, 1), memory_pos.transpose(0, 1)
        for layer in self.layers:
            kwds = {"num_k_exclude_rope": num_obj_ptr_tokens}
            output = layer(tgt=output, memory=memory, pos=memory_pos, query_pos=curr_pos, **kwds)
        return self.norm(output).transpose(0, 1)


class MemAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.no_mem_embed = nn.Parameter(torch.randn(1, 1, 64) * 0.02)
        self.memory_attention = MemoryAttention()

    def forward(
        self,
        num_obj_ptr,                            # number of cached obj_ptr (16 frames in the official code)
        current_vision_feat: torch.Tensor,      # [1, 64, 8, 8]
        current_vision_pos_embed: torch.Tensor, # [64, 1, 64]
        memory_0: torch.Tensor,                 # [num_obj_ptr, 64] -> [4*num_obj_ptr, 1, 16]
        memory_1: torch.Tensor,                 # [n, 16, 8, 8] -> [64n, 1, 16]
        memory_pos_embed: torch.Tensor,         # [64n + 4*num_obj_ptr, 1, 16]
    ):
        num_obj_ptr_tokens = num_obj_ptr[0]*4
        current_vision_feat = current_vision_feat.permute(2, 3, 0, 1).reshape(FEAT * FEAT, 1, 64)
        current_vision_feat = current_vision_feat - self.no_mem_embed
        memory_0 = memory_0.reshape(-1, 1, 4, 16)
        memory_0 = memory_0.permute(0, 2, 1, 3).flatten(0, 1)
        memory_1 = memory_1.view(-1, 16, FEAT * FEAT).permute(0, 2, 1)
        memory_1 = memory_1.reshape(-1, 1, 16)
        memory = torch.cat((memory_1, memory_0), dim=0)
        pix_feat_with_mem = self.memory_attention(
            curr=current_vision_feat,
            curr_pos=current_vision_pos_embed,
            memory=memory,
            memory_pos=memory_pos_embed,
            num_obj_ptr_tokens=num_obj_ptr_tokens,
        )
        image_embed = pix_feat_with_mem.permute(1, 2, 0).view(1, 64, FEAT, FEAT)
        return image_embed


def make_model():
    return MemAttention().eval()


def _inputs(n_ptr, n_mem):
    return (torch.tensor([n_ptr], dtype=torch.int64), torch.randn(1, 64, FEAT, FEAT), torch.randn(FEAT * FEAT, 1, 64),
            torch.randn(n_ptr, 64), torch.randn(n_mem, 16, FEAT, FEAT), torch.randn(n_mem * FEAT * FEAT + 4 * n_ptr, 1, 16))


def example_inputs():
    return _inputs(3, 2)


def other_inputs():
    return [_inputs(5, 3), _inputs(2, 1)]


def probe_inputs():
    return other_inputs()
