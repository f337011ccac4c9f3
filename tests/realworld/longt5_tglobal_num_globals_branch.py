"""LongT5 encoder with transient-global (TGlobal) attention (transformers modeling_longt5.py): global block ids come
from `_make_global_fixed_block_ids`, where `num_globals = seq_len // global_block_size` and `if num_globals > 0:`
picks the `_sequence_block_ids_max` path; the side (token -> global aggregate) bias uses T5 relative position
buckets. Exported to ONNX with a short dummy, the trace turns `num_globals > 0` into False, so the ONNX model cannot
run sequences longer than global_block_size * 2. Trimmed: one attention layer, local attention over the whole
(short) sequence instead of 3-block windows.

Source: https://github.com/huggingface/transformers/issues/18243
"""
import math

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"hidden_states": {0: "batch", 1: "sequence"}, "mask": {0: "batch", 1: "sequence"}}
BLIND = "domains-7"


def _make_global_fixed_block_ids(attention_mask, global_block_size):
    batch_size, seq_len = attention_mask.shape[:2]

    def handle_orphan_tokens(block_ids):
        block_ends = (torch.arange(seq_len) % global_block_size) == global_block_size - 1
        block_ends = block_ends.to(block_ids.device)
        true_block_ends = torch.logical_and(block_ends, block_ids >= 0)
        full_blocks = true_block_ends.sum(-1).unsqueeze(-1).type(block_ids.dtype) - 1
        block_ids = torch.where(block_ids < full_blocks, block_ids, full_blocks)
        return block_ids

    fixed_block_mask = torch.ones_like(attention_mask, device=attention_mask.device) / global_block_size
    fixed_block_mask = torch.cumsum(fixed_block_mask, axis=1) - fixed_block_mask
    mask = torch.where(attention_mask != 0.0, 1.0, -1000.0).type(attention_mask.dtype)
    global_block_ids = torch.floor(mask + fixed_block_mask - 1.0).type(attention_mask.dtype)
    _global_block_ids_lower_bound = torch.tensor(-1, dtype=global_block_ids.dtype, device=global_block_ids.device)
    global_block_ids = torch.where(
        global_block_ids > _global_block_ids_lower_bound, global_block_ids, _global_block_ids_lower_bound
    )
    # set padding tokens to -1
    global_block_ids = (global_block_ids * attention_mask) + (attention_mask - 1)
    # [batch_size, seq_len]
    global_block_ids = handle_orphan_tokens(global_block_ids)
    num_globals = seq_len // global_block_size
    # [batch_size, seq_len // global_block_size]
    if num_globals > 0:
        _sequence_block_ids_max = torch.max(global_block_ids, dim=-1).values.repeat(num_globals, 1).transpose(0, 1)
    else:
        _sequence_block_ids_max = torch.zeros(
            batch_size, 0, dtype=global_block_ids.dtype, device=global_block_ids.device
        )
    global_segment_ids = torch.cumsum(torch.ones(batch_size, num_globals), dim=-1) - 1
    global_segment_ids = global_segment_ids.to(attention_mask.device)
    global_segment_ids = torch.where(global_segment_ids <= _sequence_block_ids_max, 1, 0)
    return global_block_ids.type(torch.int), global_segment_ids.type(torch.int)


def _make_side_relative_position_ids(attention_mask, global_block_size):
    block_ids, global_segment_ids = _make_global_fixed_block_ids(attention_mask, global_block_size)
    global_seq_len = global_segment_ids.shape[-1]
    global_positions = torch.arange(global_seq_len, device=block_ids.device)
    side_relative_position = global_positions - block_ids[..., None]
    return side_relative_position.type(torch.int64)


def _create_global_aggregates(hidden_states, block_ids, global_seq_len):
    block_ids = block_ids.where(
        block_ids >= 0, torch.tensor(global_seq_len, dtype=block_ids.dtype, device=block_ids.device)
    )
    one_hot_block_ids = nn.functional.one_hot(block_ids.type(torch.int64), global_seq_len + 1)[:, :, :-1]
    return torch.einsum("...nd,...ng->...gd", hidden_states, one_hot_block_ids.type(hidden_states.dtype))


class LongT5TransientGlobalAttention(nn.Module):
    def __init__(self, d_model=32, n_heads=4, global_block_size=16, num_buckets=32, max_distance=128):
        super().__init__()
        self.n_heads, self.key_value_proj_dim = n_heads, d_model // n_heads
        self.inner_dim = d_model
        self.q, self.k, self.v, self.o = (nn.Linear(d_model, d_model, bias=False) for _ in range(4))
        self.global_block_size = global_block_size
        self.relative_attention_num_buckets, self.relative_attention_max_distance = num_buckets, max_distance
        self.global_relative_attention_bias = nn.Embedding(num_buckets, n_heads)
        self.global_input_layer_norm = nn.LayerNorm(d_model)
        self.is_decoder = False

    @staticmethod
    def _relative_position_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
        relative_buckets = 0
        if bidirectional:
            num_buckets //= 2
            relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
            relative_position = torch.abs(relative_position)
        else:
            relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
        max_exact = num_buckets // 2
        is_small = relative_position < max_exact
        relative_position_if_large = max_exact + (
            torch.log(relative_position.float() / max_exact)
            / math.log(max_distance / max_exact)
            * (num_buckets - max_exact)
        ).to(torch.long)
        relative_position_if_large = torch.min(
            relative_position_if_large, torch.full_like(relative_position_if_large, num_buckets - 1)
        )
        relative_buckets += torch.where(is_small, relative_position, relative_position_if_large)
        return relative_buckets

    def compute_side_bias(self, mask, global_segment_ids):
        side_attention_mask = torch.eq(mask[..., None], global_segment_ids[:, None, :])[:, None, ...]
        attention_side_bias = torch.where(side_attention_mask > 0, 0.0, -1e10)
        side_relative_position = _make_side_relative_position_ids(mask, self.global_block_size)
        side_relative_position_bucket = self._relative_position_bucket(
            side_relative_position,
            bidirectional=(not self.is_decoder),
            num_buckets=self.relative_attention_num_buckets,
            max_distance=self.relative_attention_max_distance,
        )
        side_bias = self.global_relative_attention_bias(side_relative_position_bucket)
        side_bias = side_bias.permute([0, 3, 1, 2])
        return attention_side_bias + side_bias

    def forward(self, hidden_states, mask):
        batch_size, seq_length = hidden_states.shape[:2]

        def shape(states):
            return states.view(batch_size, -1, self.n_heads, self.key_value_proj_dim).transpose(1, 2)

        block_ids, global_segment_ids = _make_global_fixed_block_ids(mask, self.global_block_size)
        _global_seq_len = global_segment_ids.shape[-1]
        global_inputs = _create_global_aggregates(hidden_states, block_ids, _global_seq_len)
        global_inputs = self.global_input_layer_norm(global_inputs)

        query_states = shape(self.q(hidden_states))
        key_states = shape(self.k(hidden_states))
        value_states = shape(self.v(hidden_states))
        side_key_states = shape(self.k(global_inputs))
        side_value_states = shape(self.v(global_inputs))

        local_bias = torch.where(mask[:, None, None, :] > 0, 0.0, -1e10)
        side_position_bias = self.compute_side_bias(mask, global_segment_ids)
        key_states = torch.cat([key_states, side_key_states], dim=2)
        value_states = torch.cat([value_states, side_value_states], dim=2)
        position_bias = torch.cat([local_bias.expand(-1, self.n_heads, seq_length, -1), side_position_bias], dim=-1)

        scores = torch.matmul(query_states, key_states.transpose(3, 2)) + position_bias
        attn_weights = nn.functional.softmax(scores.float(), dim=-1).type_as(scores)
        attn_output = torch.matmul(attn_weights, value_states).transpose(1, 2).reshape(batch_size, -1, self.inner_dim)
        return self.o(attn_output)


def make_model():
    return LongT5TransientGlobalAttention().eval()


def _inputs(b, s):
    return (torch.randn(b, s, 32), torch.ones(b, s))


def example_inputs():
    return _inputs(2, 8)


def other_inputs():
    return [_inputs(3, 40), _inputs(1, 20)]


def probe_inputs():
    return other_inputs()
