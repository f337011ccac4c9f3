"""vLLM's Qwen2.5-VL vision attention, TORCH_SDPA backend: the packed patch sequence of several images is
attended image by image with `for i in range(1, len(cu_seqlens))` and slices `q[:, start_idx:end_idx]` whose
bounds are single-element tensors `cu_seqlens[i - 1]` / `cu_seqlens[i]`; torch.compile of the vision block
failed on tracing those tensor-bounded slices, so vLLM first disabled compile for the block, then moved the
SDPA loop into a custom op. (einops `rearrange` written as the equivalent transposes.)

Source: https://github.com/vllm-project/vllm/pull/27764
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "seq"}, "cu_seqlens": {0: "num_images_plus_one"}, "rotary_pos_emb": {0: "seq"}}
BLIND = "domains-71"


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb_vision(t, freqs):
    t_ = t.float()
    cos = freqs.cos().repeat(1, 2).unsqueeze(-2)
    sin = freqs.sin().repeat(1, 2).unsqueeze(-2)
    output = (t_ * cos + rotate_half(t_) * sin).type_as(t)
    return output


class Qwen2_5_VisionAttention(nn.Module):
    def __init__(self, embed_dim=32, num_heads=4):
        super().__init__()
        self.num_attention_heads_per_partition = num_heads
        self.hidden_size_per_attention_head = embed_dim // num_heads
        self.qkv = nn.Linear(embed_dim, 3 * embed_dim)
        self.proj = nn.Linear(embed_dim, embed_dim)

    def split_qkv(self, qkv):
        # [s, b, 3 * head * head_dim] -> 3 * [s, b, head, head_dim]
        seq_len, bs, _ = qkv.shape
        q, k, v = qkv.chunk(3, dim=2)
        new_shape = (seq_len, bs, self.num_attention_heads_per_partition, self.hidden_size_per_attention_head)
        q, k, v = (x.view(*new_shape) for x in (q, k, v))
        return q, k, v

    def forward(self, x, cu_seqlens, rotary_pos_emb):
        # [s, b, c] --> [s, b, head * 3 * head_dim]
        x = self.qkv(x)

        # [s, b, 3 * head * head_dim] -> 3 * [s, b, head, head_dim]
        q, k, v = self.split_qkv(x)

        q, k, v = (x.transpose(0, 1).contiguous() for x in (q, k, v))  # "s b ... -> b s ..."
        if rotary_pos_emb is not None:
            # [2 * b, s, heads, head_dim]
            qk_concat = torch.cat([q, k], dim=0)
            qk_rotated = apply_rotary_pos_emb_vision(qk_concat, rotary_pos_emb)
            q, k = torch.chunk(qk_rotated, 2, dim=0)

        # Execute attention entry by entry for speed & less VRAM.
        outputs = []
        for i in range(1, len(cu_seqlens)):
            start_idx = cu_seqlens[i - 1]
            end_idx = cu_seqlens[i]
            q_i = q[:, start_idx:end_idx]
            k_i = k[:, start_idx:end_idx]
            v_i = v[:, start_idx:end_idx]
            q_i, k_i, v_i = (x.transpose(1, 2) for x in [q_i, k_i, v_i])  # "b s h d -> b h s d"
            output_i = F.scaled_dot_product_attention(q_i, k_i, v_i, dropout_p=0.0)
            output_i = output_i.transpose(1, 2)  # "b h s d -> b s h d"
            outputs.append(output_i)
        context_layer = torch.cat(outputs, dim=1)
        context_layer = context_layer.transpose(0, 1).flatten(2).contiguous()  # "b s h d -> s b (h d)"

        output = self.proj(context_layer)
        return output


def make_model():
    return Qwen2_5_VisionAttention().eval()


def _images(patch_counts):
    """Patches of several images packed in one sequence; cu_seqlens as vLLM builds it (int32, leading 0)."""
    seq = sum(patch_counts)
    cu_seqlens = torch.tensor([0] + patch_counts, dtype=torch.int32).cumsum(0, dtype=torch.int32)
    return (torch.randn(seq, 1, 32), cu_seqlens, torch.randn(seq, 4))


def example_inputs():
    return _images([16, 8])


def other_inputs():
    return [_images([12, 20, 4]), _images([24])]


def probe_inputs():
    return other_inputs()
