"""IDEFICS (v1) decoder self-attention with a KV cache: `kv_seq_len += cache_position[0]` turns the rotary
length into a 0-d tensor, then `self.rotary_emb(value_states, seq_len=max(kv_seq_len, q_len))` runs
`if seq_len > self.max_seq_len_cached:` (re-building the cos/sin buffers) and slices
`self.cos_cached[:seq_len]` with it. onnx-diagnostic PR #146 patches IdeficsEmbedding.forward (torch.cond
plus torch._check on `seq_len.item()`) and IdeficsAttention.forward (torch.maximum instead of `max`) so the
model exports.

Source: https://github.com/sdpython/onnx-diagnostic/pull/146
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {
    "hidden_states": {0: "batch", 1: "q_len"},
    "position_ids": {0: "batch", 1: "q_len"},
    "past_key": {0: "batch", 2: "past"},
    "past_value": {0: "batch", 2: "past"},
    "cache_position": {0: "q_len"},
}
BLIND = "domains-52"


class IdeficsEmbedding(torch.nn.Module):
    def __init__(self, dim, max_position_embeddings=2048, base=10000, device=None):
        super().__init__()

        self.dim = dim
        self.max_position_embeddings = max_position_embeddings
        self.base = base
        inv_freq = 1.0 / (
            self.base
            ** (torch.arange(0, self.dim, 2, dtype=torch.int64).to(device=device, dtype=torch.float) / self.dim)
        )
        self.register_buffer("inv_freq", inv_freq, persistent=False)

        # Build here to make `torch.jit.trace` work.
        self._set_cos_sin_cache(
            seq_len=max_position_embeddings, device=self.inv_freq.device, dtype=torch.get_default_dtype()
        )

    def _set_cos_sin_cache(self, seq_len, device, dtype):
        self.max_seq_len_cached = seq_len
        t = torch.arange(self.max_seq_len_cached, device=device, dtype=torch.int64).type_as(self.inv_freq)

        freqs = torch.einsum("i,j->ij", t, self.inv_freq)
        # Different from paper, but it uses a different permutation in order to obtain the same calculation
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos_cached", emb.cos().to(dtype), persistent=False)
        self.register_buffer("sin_cached", emb.sin().to(dtype), persistent=False)

    def forward(self, x, seq_len=None):
        # x: [bs, num_attention_heads, seq_len, head_size]
        if seq_len > self.max_seq_len_cached:
            self._set_cos_sin_cache(seq_len=seq_len, device=x.device, dtype=x.dtype)

        return (
            self.cos_cached[:seq_len].to(dtype=x.dtype),
            self.sin_cached[:seq_len].to(dtype=x.dtype),
        )


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin, position_ids, unsqueeze_dim=1):
    cos = cos[position_ids].unsqueeze(unsqueeze_dim)
    sin = sin[position_ids].unsqueeze(unsqueeze_dim)
    q_embed = (q * cos) + (rotate_half(q) * sin)
    k_embed = (k * cos) + (rotate_half(k) * sin)
    return q_embed, k_embed


class IdeficsAttention(nn.Module):
    def __init__(self, hidden_size=64, num_heads=4, max_position_embeddings=64):
        super().__init__()
        self.hidden_size = hidden_size
        self.num_heads = num_heads
        self.head_dim = hidden_size // num_heads
        self.scaling = self.head_dim**-0.5
        self.is_cross_attention = False
        self.q_proj = nn.Linear(hidden_size, num_heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(hidden_size, num_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(hidden_size, num_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(num_heads * self.head_dim, hidden_size, bias=False)
        self.rotary_emb = IdeficsEmbedding(self.head_dim, max_position_embeddings=max_position_embeddings)

    def forward(self, hidden_states, position_ids, past_key, past_value, cache_position):
        is_cross_attention = self.is_cross_attention
        past_key_value = (past_key, past_value)

        bsz, q_len, _ = hidden_states.size()

        query_states = self.q_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)
        key_states = self.k_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)
        value_states = self.v_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)

        kv_seq_len = key_states.shape[-2]
        if past_key_value is not None:
            kv_seq_len += cache_position[0]

        if not is_cross_attention:
            cos, sin = self.rotary_emb(value_states, seq_len=max(kv_seq_len, q_len))
            query_states, key_states = apply_rotary_pos_emb(query_states, key_states, cos, sin, position_ids)
        # [bsz, nh, t, hd]

        if past_key_value is not None:
            key_states = torch.cat([past_key_value[0], key_states], dim=2)
            value_states = torch.cat([past_key_value[1], value_states], dim=2)

        attn_weights = torch.matmul(query_states, key_states.transpose(2, 3)) * self.scaling
        attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query_states.dtype)
        attn_output = torch.matmul(attn_weights, value_states)

        attn_output = attn_output.transpose(1, 2).reshape(bsz, q_len, -1).contiguous()
        attn_output = self.o_proj(attn_output)
        return attn_output, key_states, value_states


def make_model():
    return IdeficsAttention().eval()


def _inputs(b, q, past):
    cache_position = torch.arange(past, past + q)
    return (
        torch.randn(b, q, 64),
        cache_position.unsqueeze(0).expand(b, q).contiguous(),
        torch.randn(b, 4, past, 16),
        torch.randn(b, 4, past, 16),
        cache_position,
    )


def example_inputs():
    return _inputs(2, 5, 7)


def other_inputs():
    return [_inputs(3, 3, 12), _inputs(1, 9, 4)]


def probe_inputs():
    return other_inputs()
