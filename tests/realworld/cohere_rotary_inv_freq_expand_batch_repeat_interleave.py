"""Transformers `CohereRotaryEmbedding.forward` in a decoder exported for text generation: the inverse frequencies
are broadcast to the batch with `self.inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)` before
the matmul with `position_ids`, and interleaved with `repeat_interleave(freqs, 2, dim=-1)`. optimum-onnx's Cohere
export patches this forward ("expand ... causes ONNX export issues with dynamic shapes and view operations", replaced
by `repeat(batch_size, 1, 1)`). One attention layer with Cohere's interleaved rotary.

Source: https://github.com/huggingface/optimum-onnx/pull/43
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "views"
FAMILY = "views"
DYNAMIC = {"input_ids": {0: "batch", 1: "seq"}, "position_ids": {0: "batch", 1: "seq"}}
BLIND = "domains-33"


class CohereRotaryEmbedding(nn.Module):
    def __init__(self, dim, base=10000.0):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.attention_scaling = 1.0

    @torch.no_grad()
    def forward(self, x, position_ids):
        inv_freq_expanded = self.inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
        position_ids_expanded = position_ids[:, None, :].float()

        device_type = x.device.type if isinstance(x.device.type, str) and x.device.type != "mps" else "cpu"
        with torch.autocast(device_type=device_type, enabled=False):  # Force float32
            freqs = (inv_freq_expanded.float() @ position_ids_expanded.float()).transpose(1, 2)
            emb = torch.repeat_interleave(freqs, 2, dim=-1)  # diff from Llama: we interleave() instead of cat()
            cos = emb.cos() * self.attention_scaling
            sin = emb.sin() * self.attention_scaling

        return cos.to(dtype=x.dtype), sin.to(dtype=x.dtype)


def rotate_half(x):
    # Split and rotate. Note that this function is different from e.g. Llama.
    x1 = x[..., ::2]
    x2 = x[..., 1::2]
    rot_x = torch.stack([-x2, x1], dim=-1).flatten(-2)
    return rot_x


def apply_rotary_pos_emb(q, k, cos, sin, position_ids=None, unsqueeze_dim=1):
    dtype = q.dtype
    q = q.float()
    k = k.float()
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    q_embed = (q * cos) + (rotate_half(q) * sin)
    k_embed = (k * cos) + (rotate_half(k) * sin)
    return q_embed.to(dtype=dtype), k_embed.to(dtype=dtype)


class CohereForCausalLM(nn.Module):
    def __init__(self, vocab_size=64, hidden_size=32, num_heads=2):
        super().__init__()
        self.num_heads, self.head_dim = num_heads, hidden_size // num_heads
        self.embed_tokens = nn.Embedding(vocab_size, hidden_size)
        self.q_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.k_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.v_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.o_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.rotary_emb = CohereRotaryEmbedding(self.head_dim)
        self.lm_head = nn.Linear(hidden_size, vocab_size, bias=False)

    def forward(self, input_ids, position_ids):
        hidden_states = self.embed_tokens(input_ids)
        bsz, q_len, _ = hidden_states.shape
        hidden_shape = (bsz, q_len, -1, self.head_dim)
        query_states = self.q_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        key_states = self.k_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        value_states = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        cos, sin = self.rotary_emb(hidden_states, position_ids)
        query_states, key_states = apply_rotary_pos_emb(query_states, key_states, cos, sin)
        attn_output = F.scaled_dot_product_attention(query_states, key_states, value_states, is_causal=True)
        attn_output = attn_output.transpose(1, 2).reshape(bsz, q_len, -1)
        return self.lm_head(hidden_states + self.o_proj(attn_output))


def make_model():
    return CohereForCausalLM().eval()


def _inputs(batch, seq, offset):
    return (torch.randint(0, 64, (batch, seq)), torch.arange(offset, offset + seq).expand(batch, -1).clone())


def example_inputs():
    return _inputs(2, 6, 0)


def other_inputs():
    return [_inputs(3, 9, 4), _inputs(1, 4, 11)]


def probe_inputs():
    return other_inputs()
