"""Hugging Face decoder layer exported with its KV cache as inputs/outputs: the causal mask is only built
`if input_shape[-1] > 1` (prompt phase), and the past length comes from `past_key_values[0][0].shape[2]`, so
"the exported model currently works only with one of these phases, depending on the example_inputs provided":
exported in the token phase (one new token), it drops the causal mask when run on a multi-token prompt.

Source: https://github.com/pytorch/pytorch/issues/136592
"""
import math

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {
    "inputs_embeds": {0: "batch", 1: "seq"},
    "past_key": {0: "batch", 2: "past_seq"},
    "past_value": {0: "batch", 2: "past_seq"},
}
BLIND = "domains-32"


# transformers.models.llama.modeling_llama._make_causal_mask (4.3x)
def _make_causal_mask(input_ids_shape, dtype, device, past_key_values_length: int = 0):
    bsz, tgt_len = input_ids_shape
    mask = torch.full((tgt_len, tgt_len), torch.finfo(dtype).min, device=device)
    mask_cond = torch.arange(mask.size(-1), device=device)
    mask.masked_fill_(mask_cond < (mask_cond + 1).view(mask.size(-1), 1), 0)
    mask = mask.to(dtype)

    if past_key_values_length > 0:
        mask = torch.cat([torch.zeros(tgt_len, past_key_values_length, dtype=dtype, device=device), mask], dim=-1)
    return mask[None, None, :, :].expand(bsz, 1, tgt_len, tgt_len + past_key_values_length)


class LlamaAttentionWithPast(nn.Module):
    def __init__(self, hidden_size=32, num_heads=4):
        super().__init__()
        self.hidden_size = hidden_size
        self.num_heads = num_heads
        self.head_dim = hidden_size // num_heads
        self.q_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.k_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.v_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.o_proj = nn.Linear(hidden_size, hidden_size, bias=False)

    def _prepare_decoder_attention_mask(self, input_shape, inputs_embeds, past_key_values_length):
        combined_attention_mask = None
        if input_shape[-1] > 1:
            combined_attention_mask = _make_causal_mask(
                input_shape, inputs_embeds.dtype, device=inputs_embeds.device,
                past_key_values_length=past_key_values_length,
            )
        return combined_attention_mask

    def forward(self, inputs_embeds, past_key, past_value):
        past_key_value = (past_key, past_value)
        bsz, q_len, _ = inputs_embeds.size()
        past_key_values_length = past_key_value[0].shape[2]
        attention_mask = self._prepare_decoder_attention_mask((bsz, q_len), inputs_embeds, past_key_values_length)

        query_states = self.q_proj(inputs_embeds).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)
        key_states = self.k_proj(inputs_embeds).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)
        value_states = self.v_proj(inputs_embeds).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)

        key_states = torch.cat([past_key_value[0], key_states], dim=2)
        value_states = torch.cat([past_key_value[1], value_states], dim=2)

        attn_weights = torch.matmul(query_states, key_states.transpose(2, 3)) / math.sqrt(self.head_dim)
        if attention_mask is not None:
            attn_weights = attn_weights + attention_mask
        attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query_states.dtype)
        attn_output = torch.matmul(attn_weights, value_states)
        attn_output = attn_output.transpose(1, 2).reshape(bsz, q_len, self.hidden_size)
        return self.o_proj(attn_output), key_states, value_states


def make_model():
    return LlamaAttentionWithPast().eval()


def _inputs(batch, seq, past):
    return (torch.randn(batch, seq, 32), torch.randn(batch, 4, past, 8), torch.randn(batch, 4, past, 8))


def example_inputs():
    # token phase: one new token on top of a 6-token cache
    return _inputs(2, 1, 6)


def other_inputs():
    # prompt/chunk phase: several new tokens (needs the causal mask)
    return [_inputs(3, 5, 4), _inputs(1, 7, 2)]


def probe_inputs():
    return other_inputs()
