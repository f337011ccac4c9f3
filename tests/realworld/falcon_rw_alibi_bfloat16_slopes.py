"""Falcon-RW (ALiBi variant, e.g. tiiuae/falcon-rw-1b): `build_alibi_tensor` multiplies the ALiBi slopes by the
token positions as `slopes[..., None].bfloat16() * arange_tensor` even when the model runs in float32. Exporting
the model to ONNX gives a graph that onnxruntime cannot load (the fix's note: "PyTorch ONNX export rather casts to
complex128 if this is used, resulting in a onnxruntime.capi.onnxruntime_pybind11_state.InvalidGraph error").

Source: https://github.com/huggingface/optimum/pull/1524
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "dtype-gap"
FAMILY = "tensor_data"
DYNAMIC = {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"}}
BLIND = "domains-11"


# ---- transformers 4.35 models/falcon/modeling_falcon.py ----
def build_alibi_tensor(attention_mask: torch.Tensor, num_heads: int, dtype: torch.dtype) -> torch.Tensor:
    batch_size, seq_length = attention_mask.shape
    closest_power_of_2 = 2 ** math.floor(math.log2(num_heads))
    base = torch.tensor(
        2 ** (-(2 ** -(math.log2(closest_power_of_2) - 3))), device=attention_mask.device, dtype=torch.float32
    )
    powers = torch.arange(1, 1 + closest_power_of_2, device=attention_mask.device, dtype=torch.int32)
    slopes = torch.pow(base, powers)

    if closest_power_of_2 != num_heads:
        extra_base = torch.tensor(
            2 ** (-(2 ** -(math.log2(2 * closest_power_of_2) - 3))), device=attention_mask.device, dtype=torch.float32
        )
        num_remaining_heads = min(closest_power_of_2, num_heads - closest_power_of_2)
        extra_powers = torch.arange(1, 1 + 2 * num_remaining_heads, 2, device=attention_mask.device, dtype=torch.int32)
        slopes = torch.cat([slopes, torch.pow(extra_base, extra_powers)], dim=0)

    # Note: alibi will added to the attention bias that will be applied to the query, key product of attention
    # => therefore alibi will have to be of shape (batch_size, num_heads, query_length, key_length)
    # => here we set (batch_size=1, num_heads=num_heads, query_length=1, key_length=max_length)
    # => the query_length dimension will then be broadcasted correctly
    # This is more or less identical to T5's relative position bias:
    arange_tensor = ((attention_mask.cumsum(dim=-1) - 1) * attention_mask)[:, None, :]
    alibi = slopes[..., None].bfloat16() * arange_tensor
    return alibi.reshape(batch_size * num_heads, 1, seq_length).to(dtype)


class FalconAttention(nn.Module):
    """Falcon self-attention, alibi branch (no rotary, no kv cache)."""

    def __init__(self, hidden_size, num_heads):
        super().__init__()
        self.hidden_size = hidden_size
        self.num_heads = num_heads
        self.head_dim = hidden_size // num_heads
        self.inv_norm_factor = 1.0 / math.sqrt(self.head_dim)
        self.query_key_value = nn.Linear(hidden_size, 3 * hidden_size, bias=True)
        self.dense = nn.Linear(hidden_size, hidden_size, bias=True)

    def forward(self, hidden_states, alibi, attention_mask):
        batch_size, query_length, _ = hidden_states.shape
        fused_qkv = self.query_key_value(hidden_states)
        fused_qkv = fused_qkv.view(batch_size, query_length, self.num_heads, 3, self.head_dim)
        query_layer, key_layer, value_layer = fused_qkv[..., 0, :], fused_qkv[..., 1, :], fused_qkv[..., 2, :]
        query_layer = query_layer.transpose(1, 2).reshape(batch_size * self.num_heads, query_length, self.head_dim)
        key_layer = key_layer.transpose(1, 2).reshape(batch_size * self.num_heads, query_length, self.head_dim)
        value_layer = value_layer.transpose(1, 2).reshape(batch_size * self.num_heads, query_length, self.head_dim)
        kv_length = key_layer.shape[1]

        query_layer_ = query_layer.reshape(batch_size, self.num_heads, -1, self.head_dim)
        key_layer_ = key_layer.reshape(batch_size, self.num_heads, -1, self.head_dim)
        value_layer_ = value_layer.reshape(batch_size, self.num_heads, -1, self.head_dim)

        matmul_result = query_layer_ @ key_layer_.transpose(-1, -2)
        # change view to [batch_size, num_heads, q_length, kv_length]
        attention_scores = matmul_result.view(batch_size, self.num_heads, query_length, kv_length)
        attention_logits = attention_scores + alibi.view(batch_size, self.num_heads, 1, -1)
        attention_logits *= self.inv_norm_factor
        attention_probs = F.softmax(attention_logits + attention_mask, dim=-1, dtype=hidden_states.dtype)
        # [batch_size, num_heads, q_length, head_dim]
        context_layer = attention_probs @ value_layer_
        context_layer = context_layer.permute(0, 2, 1, 3).reshape(batch_size, query_length, self.hidden_size)
        return self.dense(context_layer)


class FalconRWModel(nn.Module):
    def __init__(self, vocab_size=100, hidden_size=64, num_heads=4):
        super().__init__()
        self.num_heads = num_heads
        self.word_embeddings = nn.Embedding(vocab_size, hidden_size)
        self.input_layernorm = nn.LayerNorm(hidden_size)
        self.self_attention = FalconAttention(hidden_size, num_heads)
        self.ln_f = nn.LayerNorm(hidden_size)

    def forward(self, input_ids, attention_mask):
        hidden_states = self.word_embeddings(input_ids)
        alibi = build_alibi_tensor(attention_mask, self.num_heads, dtype=hidden_states.dtype)
        seq_length = input_ids.shape[1]
        causal = torch.triu(torch.ones(seq_length, seq_length, dtype=torch.bool, device=input_ids.device), diagonal=1)
        mask = causal[None, None, :, :] | (attention_mask[:, None, None, :] == 0)
        mask = torch.zeros(mask.shape, dtype=hidden_states.dtype).masked_fill(mask, torch.finfo(hidden_states.dtype).min)
        hidden_states = hidden_states + self.self_attention(self.input_layernorm(hidden_states), alibi, mask)
        return self.ln_f(hidden_states)


def make_model():
    return FalconRWModel().eval()


def example_inputs():
    return (torch.randint(0, 100, (2, 12)), torch.ones(2, 12, dtype=torch.long))


def other_inputs():
    return [(torch.randint(0, 100, (3, 9)), torch.ones(3, 9, dtype=torch.long)),
            (torch.randint(0, 100, (1, 17)), torch.ones(1, 17, dtype=torch.long))]


def probe_inputs():
    return other_inputs()
