"""QEfficient's GLM-MoE-DSA dense-MLA attention writes the new latent KV into the fixed-size cache at `position_ids`
and then trims the cache and mask to the live context with `live_context = int(position_ids.max().item()) + 1` /
`state[..., :live_context, :]` (`_trim_live_context`); the function is skipped under
`torch.onnx.is_in_onnx_export() or torch.jit.is_tracing()` because the exported graph must keep the full cache
length instead of a length read from the position values.

Source: https://github.com/quic/efficient-transformers/blob/10eab4b05544f96ef55d7433ea058556c0342e52/QEfficient/blocking/glm_attention.py
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"hidden_states": {1: "seq_len"}, "position_ids": {1: "seq_len"}, "attention_mask": {2: "seq_len"}}
BLIND = "domains-44"

MIN_MASKED_ATTENTION_VALUE = -1e4
CTX_LEN = 32


def _trim_live_context(position_ids, attention_mask, *states):
    if position_ids is None:
        return attention_mask, states
    live_context = int(position_ids.max().item()) + 1
    states = tuple(state[..., :live_context, :] for state in states)
    if attention_mask is not None:
        attention_mask = attention_mask[..., :live_context]
    return attention_mask, states


class DenseMLAAttention(nn.Module):
    def __init__(self, hidden=32, num_heads=2, q_lora_rank=16, kv_lora_rank=16, qk_nope_head_dim=8,
                 qk_rope_head_dim=4, v_head_dim=8):
        super().__init__()
        self.num_heads = num_heads
        self.kv_lora_rank = kv_lora_rank
        self.qk_nope_head_dim = qk_nope_head_dim
        self.qk_rope_head_dim = qk_rope_head_dim
        self.v_head_dim = v_head_dim
        self.scaling = (qk_nope_head_dim + qk_rope_head_dim) ** -0.5
        self.q_a_proj = nn.Linear(hidden, q_lora_rank, bias=False)
        self.q_a_layernorm = nn.LayerNorm(q_lora_rank)
        self.q_b_proj = nn.Linear(q_lora_rank, num_heads * (qk_nope_head_dim + qk_rope_head_dim), bias=False)
        self.kv_a_proj_with_mqa = nn.Linear(hidden, kv_lora_rank + qk_rope_head_dim, bias=False)
        self.kv_a_layernorm = nn.LayerNorm(kv_lora_rank)
        self.kv_b_proj = nn.Linear(kv_lora_rank, num_heads * (qk_nope_head_dim + v_head_dim), bias=False)
        self.o_proj = nn.Linear(num_heads * v_head_dim, hidden, bias=False)

    def _expand_kv(self, compressed_kv, key_rope):
        batch_size, _, seq_len, _ = compressed_kv.shape
        projected = self.kv_b_proj(compressed_kv[:, 0])
        projected = projected.view(batch_size, seq_len, self.num_heads, self.qk_nope_head_dim + self.v_head_dim)
        projected = projected.transpose(1, 2)
        key_nope, values = torch.split(projected, [self.qk_nope_head_dim, self.v_head_dim], dim=-1)
        key_rope = key_rope[:, 0].unsqueeze(1).expand(-1, self.num_heads, -1, -1)
        return torch.cat((key_nope, key_rope), dim=-1), values

    def forward(self, hidden_states, position_ids, attention_mask, ckv_cache, k_pe_cache):
        batch_size, seq_len = hidden_states.shape[:2]
        q = self.q_b_proj(self.q_a_layernorm(self.q_a_proj(hidden_states)))
        query = q.view(batch_size, seq_len, self.num_heads, -1).transpose(1, 2)

        projected_kv = self.kv_a_proj_with_mqa(hidden_states)
        compressed_kv, key_rope = torch.split(projected_kv, [self.kv_lora_rank, self.qk_rope_head_dim], dim=-1)
        compressed_kv = self.kv_a_layernorm(compressed_kv).view(batch_size, 1, seq_len, self.kv_lora_rank)
        key_rope = key_rope.view(batch_size, 1, seq_len, self.qk_rope_head_dim)

        # cache.update_ckv / update_k_pe: scatter the new rows into the CTX_LEN cache at position_ids
        idx = position_ids[:, None, :, None]
        compressed_kv = ckv_cache.scatter(2, idx.expand(-1, 1, -1, self.kv_lora_rank), compressed_kv)
        key_rope = k_pe_cache.scatter(2, idx.expand(-1, 1, -1, self.qk_rope_head_dim), key_rope)
        attention_mask, (compressed_kv, key_rope) = _trim_live_context(
            position_ids, attention_mask, compressed_kv, key_rope
        )

        keys, values = self._expand_kv(compressed_kv, key_rope)
        weights = torch.einsum("bhsd,bhtd->bhst", query, keys) * self.scaling
        if attention_mask is not None:
            weights = torch.where(attention_mask, torch.full_like(weights, MIN_MASKED_ATTENTION_VALUE), weights)
        weights = F.softmax(weights, dim=-1, dtype=torch.float32).to(query.dtype)
        output = torch.einsum("bhst,bhtd->bhsd", weights, values)
        output = output.transpose(1, 2).contiguous().reshape(batch_size, seq_len, -1)
        return self.o_proj(output)


def make_model():
    return DenseMLAAttention().eval()


def _inputs(start, seq_len, batch=1):
    position_ids = torch.arange(start, start + seq_len).unsqueeze(0).expand(batch, -1).contiguous()
    ctx = torch.arange(CTX_LEN)
    # True = masked (future or unwritten slot)
    attention_mask = (ctx[None, None, None, :] > position_ids[:, None, :, None])
    return (torch.randn(batch, seq_len, 32), position_ids, attention_mask,
            torch.randn(batch, 1, CTX_LEN, 16), torch.randn(batch, 1, CTX_LEN, 4))


def example_inputs():
    return _inputs(5, 4)


def other_inputs():
    return [_inputs(12, 6), _inputs(0, 3)]


def probe_inputs():
    return other_inputs()
