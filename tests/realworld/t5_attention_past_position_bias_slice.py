"""T5 decoder self-attention with past key/values (transformers 4.3 `T5Attention`): the relative position
bias is computed for the full `real_seq_length` and then cut to the new queries with
`position_bias[:, :, -seq_length:, :]`, where `seq_length` comes from `hidden_states.shape[:2]`. Tracing the
decoder-with-past for ONNX failed with "output with shape [5, 8, 1, 2] doesn't match the broadcast shape
[5, 8, 2, 2]" at `scores += position_bias` (the PR replaces the slice with `-hidden_states.size(1):`).
Trimmed to one attention layer with the cache passed in as tensors.

Source: https://github.com/huggingface/transformers/pull/10651
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "indexing"
FAMILY = "shape_math"
DYNAMIC = {
    "hidden_states": {0: "batch", 1: "sequence"},
    "past_key": {0: "batch", 2: "past_sequence"},
    "past_value": {0: "batch", 2: "past_sequence"},
}
BLIND = "domains-8"


class T5Attention(nn.Module):
    def __init__(self, d_model=32, d_kv=8, num_heads=4, relative_attention_num_buckets=32, is_decoder=True):
        super().__init__()
        self.is_decoder = is_decoder
        self.has_relative_attention_bias = True
        self.relative_attention_num_buckets = relative_attention_num_buckets
        self.d_model = d_model
        self.key_value_proj_dim = d_kv
        self.n_heads = num_heads
        self.inner_dim = self.n_heads * self.key_value_proj_dim
        self.q = nn.Linear(self.d_model, self.inner_dim, bias=False)
        self.k = nn.Linear(self.d_model, self.inner_dim, bias=False)
        self.v = nn.Linear(self.d_model, self.inner_dim, bias=False)
        self.o = nn.Linear(self.inner_dim, self.d_model, bias=False)
        self.relative_attention_bias = nn.Embedding(self.relative_attention_num_buckets, self.n_heads)

    @staticmethod
    def _relative_position_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
        relative_buckets = 0
        if bidirectional:
            num_buckets //= 2
            relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
            relative_position = torch.abs(relative_position)
        else:
            relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
        # now relative_position is in the range [0, inf)

        # half of the buckets are for exact increments in positions
        max_exact = num_buckets // 2
        is_small = relative_position < max_exact

        # The other half of the buckets are for logarithmically bigger bins in positions up to max_distance
        relative_postion_if_large = max_exact + (
            torch.log(relative_position.float() / max_exact)
            / math.log(max_distance / max_exact)
            * (num_buckets - max_exact)
        ).to(torch.long)
        relative_postion_if_large = torch.min(
            relative_postion_if_large, torch.full_like(relative_postion_if_large, num_buckets - 1)
        )

        relative_buckets += torch.where(is_small, relative_position, relative_postion_if_large)
        return relative_buckets

    def compute_bias(self, query_length, key_length):
        """ Compute binned relative position bias """
        context_position = torch.arange(query_length, dtype=torch.long)[:, None]
        memory_position = torch.arange(key_length, dtype=torch.long)[None, :]
        relative_position = memory_position - context_position  # shape (query_length, key_length)
        relative_position_bucket = self._relative_position_bucket(
            relative_position,  # shape (query_length, key_length)
            bidirectional=(not self.is_decoder),
            num_buckets=self.relative_attention_num_buckets,
        )
        relative_position_bucket = relative_position_bucket.to(self.relative_attention_bias.weight.device)
        values = self.relative_attention_bias(relative_position_bucket)  # shape (query_length, key_length, num_heads)
        values = values.permute([2, 0, 1]).unsqueeze(0)  # shape (1, num_heads, query_length, key_length)
        return values

    def forward(self, hidden_states, past_key, past_value):
        past_key_value = (past_key, past_value)
        query_length = None
        # Input is (batch_size, seq_length, dim)
        batch_size, seq_length = hidden_states.shape[:2]

        real_seq_length = seq_length

        if past_key_value is not None:
            assert (
                len(past_key_value) == 2
            ), "past_key_value should have 2 past states: keys and values. Got {} past states".format(
                len(past_key_value)
            )
            real_seq_length += past_key_value[0].shape[2] if query_length is None else query_length

        key_length = real_seq_length

        def shape(states):
            """  projection """
            return states.view(batch_size, -1, self.n_heads, self.key_value_proj_dim).transpose(1, 2)

        def unshape(states):
            """  reshape """
            return states.transpose(1, 2).contiguous().view(batch_size, -1, self.inner_dim)

        query_states = shape(self.q(hidden_states))
        key_states = torch.cat([past_key_value[0], shape(self.k(hidden_states))], dim=2)
        value_states = torch.cat([past_key_value[1], shape(self.v(hidden_states))], dim=2)

        scores = torch.matmul(query_states, key_states.transpose(3, 2))

        position_bias = self.compute_bias(real_seq_length, key_length)

        # if key and values are already calculated
        # we want only the last query position bias
        if past_key_value is not None:
            position_bias = position_bias[:, :, -seq_length:, :]

        scores += position_bias
        attn_weights = F.softmax(scores.float(), dim=-1).type_as(scores)

        attn_output = unshape(torch.matmul(attn_weights, value_states))
        attn_output = self.o(attn_output)
        return attn_output, key_states, value_states


def make_model():
    return T5Attention().eval()


def _inputs(b, q, p):
    return (torch.randn(b, q, 32), torch.randn(b, 4, p, 8), torch.randn(b, 4, p, 8))


def example_inputs():
    return _inputs(2, 3, 5)


def other_inputs():
    return [_inputs(3, 1, 7), _inputs(1, 4, 2)]


def probe_inputs():
    return other_inputs()
