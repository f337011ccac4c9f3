"""transformers 5 `sdpa_attention_forward` (the SDPA attention interface every decoder LLM calls) decides
`is_causal = query.shape[2] > 1 and attention_mask is None and is_causal`, a Python branch on the query length
(turned into a constant with `.item()` when jit-tracing); the onnx-diagnostic PR patches it "because of a control
flow" so that one exported decoder graph (CodeLlama) serves both prefill (q_len > 1) and decode steps (q_len == 1)
with a KV cache. One Llama-style attention layer (MHA, no GQA) with past key/value inputs, no padding mask.

Source: https://github.com/sdpython/onnx-diagnostic/pull/267
"""
from typing import Optional

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {
    "hidden_states": {0: "batch", 1: "seq"},
    "past_key": {0: "batch", 2: "past"},
    "past_value": {0: "batch", 2: "past"},
}
BLIND = "domains-41"


def repeat_kv(hidden_states: torch.Tensor, n_rep: int) -> torch.Tensor:
    batch, num_key_value_heads, slen, head_dim = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)


def use_gqa_in_sdpa(attention_mask: Optional[torch.Tensor], key: torch.Tensor) -> bool:
    return attention_mask is None and not isinstance(key, torch.fx.Proxy)


def sdpa_attention_forward(
    module: torch.nn.Module,
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    attention_mask: Optional[torch.Tensor],
    dropout: float = 0.0,
    scaling: Optional[float] = None,
    is_causal: Optional[bool] = None,
    **kwargs,
) -> tuple[torch.Tensor, None]:
    sdpa_kwargs = {}
    if hasattr(module, "num_key_value_groups") and module.num_key_value_groups > 1:
        if not use_gqa_in_sdpa(attention_mask, key):
            key = repeat_kv(key, module.num_key_value_groups)
            value = repeat_kv(value, module.num_key_value_groups)
        else:
            sdpa_kwargs = {"enable_gqa": True}

    if attention_mask is not None and attention_mask.ndim == 4:
        attention_mask = attention_mask[:, :, :, : key.shape[-2]]

    # We dispatch to SDPA's Flash Attention or Efficient kernels via this `is_causal` if statement instead of an
    # inline conditional assignment in SDPA to support both torch.compile's dynamic shapes and full graph options.
    is_causal = is_causal if is_causal is not None else getattr(module, "is_causal", True)
    is_causal = query.shape[2] > 1 and attention_mask is None and is_causal

    # Shapes (e.g. query.shape[2]) are tensors during jit tracing, resulting in `is_causal` being a tensor.
    # We convert it to a bool for the SDPA kernel that only accepts bools.
    if torch.jit.is_tracing() and isinstance(is_causal, torch.Tensor):
        is_causal = is_causal.item()

    attn_output = torch.nn.functional.scaled_dot_product_attention(
        query, key, value, attn_mask=attention_mask, dropout_p=dropout, scale=scaling, is_causal=is_causal,
        **sdpa_kwargs,
    )
    attn_output = attn_output.transpose(1, 2).contiguous()
    return attn_output, None


class LlamaAttention(nn.Module):
    def __init__(self, hidden_size=32, num_heads=4):
        super().__init__()
        self.head_dim = hidden_size // num_heads
        self.num_heads = num_heads
        self.num_key_value_groups = 1
        self.scaling = self.head_dim ** -0.5
        self.is_causal = True
        self.q_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.k_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.v_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.o_proj = nn.Linear(hidden_size, hidden_size, bias=False)

    def forward(self, hidden_states, past_key, past_value):
        input_shape = hidden_states.shape[:-1]
        hidden_shape = (*input_shape, -1, self.head_dim)
        query_states = self.q_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        key_states = self.k_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        value_states = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        key_states = torch.cat([past_key, key_states], dim=-2)
        value_states = torch.cat([past_value, value_states], dim=-2)
        attn_output, _ = sdpa_attention_forward(
            self, query_states, key_states, value_states, None, dropout=0.0, scaling=self.scaling
        )
        attn_output = attn_output.reshape(*input_shape, -1).contiguous()
        return self.o_proj(attn_output), key_states, value_states


def make_model():
    return LlamaAttention().eval()


def _inputs(bsz, seq, past):
    return torch.randn(bsz, seq, 32), torch.randn(bsz, 4, past, 8), torch.randn(bsz, 4, past, 8)


def example_inputs():
    return _inputs(2, 5, 3)   # prefill chunk


def other_inputs():
    return [_inputs(3, 1, 6), _inputs(1, 3, 4)]   # decode step (q_len == 1), another chunk


def probe_inputs():
    return other_inputs()
