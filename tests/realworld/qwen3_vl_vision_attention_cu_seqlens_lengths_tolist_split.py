"""Qwen3-VL vision tower (HF `Qwen3VLVisionModel`, sdpa path): `forward` builds `cu_seqlens` from `grid_thw`
with `repeat_interleave(...).cumsum(...)`, and every `Qwen3VLVisionAttention` does
`lengths = cu_seqlens[1:] - cu_seqlens[:-1]` and `torch.split(tensor, lengths.tolist(), dim=2)`, attending
image by image in a Python loop. optimum-intel's Qwen3-VL export patcher replaces cu_seqlens with an
attention_mask input because this per-image loop is "unsupported by tracing due to cycle with dynamic len".
(Two blocks, no rotary / deepstack; merger reduced to a linear.)

Source: https://github.com/huggingface/optimum-intel/pull/1551
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"hidden_states": {0: "num_patches"}, "grid_thw": {0: "num_images"}}
BLIND = "domains-78"


class Qwen3VLVisionAttention(nn.Module):
    def __init__(self, dim, num_heads):
        super().__init__()
        self.dim = dim
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.scaling = self.head_dim ** -0.5
        self.qkv = nn.Linear(dim, dim * 3, bias=True)
        self.proj = nn.Linear(dim, dim)

    def forward(self, hidden_states, cu_seqlens):
        seq_length = hidden_states.shape[0]
        query_states, key_states, value_states = (
            self.qkv(hidden_states).reshape(seq_length, 3, self.num_heads, -1).permute(1, 0, 2, 3).unbind(0)
        )
        query_states = query_states.transpose(0, 1).unsqueeze(0)
        key_states = key_states.transpose(0, 1).unsqueeze(0)
        value_states = value_states.transpose(0, 1).unsqueeze(0)

        # Other implementations: Process each chunk separately
        lengths = cu_seqlens[1:] - cu_seqlens[:-1]
        splits = [
            torch.split(tensor, lengths.tolist(), dim=2) for tensor in (query_states, key_states, value_states)
        ]
        attn_outputs = [
            F.scaled_dot_product_attention(q, k, v, scale=self.scaling).transpose(1, 2)
            for q, k, v in zip(*splits)
        ]
        attn_output = torch.cat(attn_outputs, dim=1)
        attn_output = attn_output.reshape(seq_length, -1).contiguous()
        return self.proj(attn_output)


class Qwen3VLVisionBlock(nn.Module):
    def __init__(self, dim, num_heads):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim, eps=1e-6)
        self.norm2 = nn.LayerNorm(dim, eps=1e-6)
        self.attn = Qwen3VLVisionAttention(dim, num_heads)
        self.mlp = nn.Sequential(nn.Linear(dim, dim * 2), nn.GELU(approximate="tanh"), nn.Linear(dim * 2, dim))

    def forward(self, hidden_states, cu_seqlens):
        hidden_states = hidden_states + self.attn(self.norm1(hidden_states), cu_seqlens=cu_seqlens)
        hidden_states = hidden_states + self.mlp(self.norm2(hidden_states))
        return hidden_states


class Qwen3VLVisionModel(nn.Module):
    def __init__(self, patch_dim=24, hidden_size=32, num_heads=4, depth=2):
        super().__init__()
        self.patch_embed = nn.Linear(patch_dim, hidden_size, bias=False)
        self.blocks = nn.ModuleList([Qwen3VLVisionBlock(hidden_size, num_heads) for _ in range(depth)])
        self.merger = nn.Linear(hidden_size, hidden_size)

    def forward(self, hidden_states, grid_thw):
        hidden_states = self.patch_embed(hidden_states)
        cu_seqlens = torch.repeat_interleave(grid_thw[:, 1] * grid_thw[:, 2], grid_thw[:, 0]).cumsum(
            dim=0,
            # Select dtype based on the following factors:
            #  - FA2 requires that cu_seqlens_q must have dtype int32
            #  - torch.onnx.export requires that cu_seqlens_q must have same dtype as grid_thw
            dtype=grid_thw.dtype if torch.jit.is_tracing() else torch.int32,
        )
        cu_seqlens = F.pad(cu_seqlens, (1, 0), value=0)
        for blk in self.blocks:
            hidden_states = blk(hidden_states, cu_seqlens=cu_seqlens)
        return self.merger(hidden_states)


def make_model():
    return Qwen3VLVisionModel().eval()


def _inputs(grids):
    grid_thw = torch.tensor(grids, dtype=torch.int64)
    n = int((grid_thw[:, 0] * grid_thw[:, 1] * grid_thw[:, 2]).sum())
    return (torch.randn(n, 24), grid_thw)


def example_inputs():
    return _inputs([[1, 4, 6], [1, 2, 4]])


def other_inputs():
    return [_inputs([[1, 6, 4], [1, 4, 4], [1, 2, 2]]), _inputs([[1, 8, 6]])]


def probe_inputs():
    return other_inputs()
