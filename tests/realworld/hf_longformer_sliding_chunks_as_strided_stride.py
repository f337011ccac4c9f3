"""Longformer for sequence classification (transformers LongformerSelfAttention): the sliding-window
attention makes overlapping chunks with `hidden_states.as_strided(size=chunk_size, stride=chunk_stride)`,
where size and stride are read from the tensor at run time (`list(hidden_states.size())`,
`list(hidden_states.stride())`). The report: the exported ONNX model loses accuracy; the maintainers
trace it to the strides being fixed at the export sequence length. Trimmed to one attention layer
(invalid-location masking and global attention left out) plus a classification head.

Source: https://github.com/huggingface/optimum/issues/776
"""
import math

import torch
from torch import nn

CLASS = "views"
FAMILY = "views"
DYNAMIC = {"hidden_states": {0: "batch", 1: "sequence"}}
BLIND = "domains-28"


class LongformerSelfAttention(nn.Module):
    def __init__(self, hidden_size=32, num_heads=4, attention_window=8):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = hidden_size // num_heads
        self.embed_dim = hidden_size
        self.query = nn.Linear(hidden_size, self.embed_dim)
        self.key = nn.Linear(hidden_size, self.embed_dim)
        self.value = nn.Linear(hidden_size, self.embed_dim)
        self.one_sided_attn_window_size = attention_window // 2

    @staticmethod
    def _pad_and_transpose_last_two_dims(hidden_states_padded, padding):
        hidden_states_padded = nn.functional.pad(hidden_states_padded, padding)
        hidden_states_padded = hidden_states_padded.view(
            *hidden_states_padded.size()[:-2], hidden_states_padded.size(-1), hidden_states_padded.size(-2)
        )
        return hidden_states_padded

    @staticmethod
    def _pad_and_diagonalize(chunked_hidden_states):
        total_num_heads, num_chunks, window_overlap, hidden_dim = chunked_hidden_states.size()
        chunked_hidden_states = nn.functional.pad(chunked_hidden_states, (0, window_overlap + 1))
        chunked_hidden_states = chunked_hidden_states.view(total_num_heads, num_chunks, -1)
        chunked_hidden_states = chunked_hidden_states[:, :, :-window_overlap]
        chunked_hidden_states = chunked_hidden_states.view(
            total_num_heads, num_chunks, window_overlap, window_overlap + hidden_dim
        )
        chunked_hidden_states = chunked_hidden_states[:, :, :, :-1]
        return chunked_hidden_states

    @staticmethod
    def _chunk(hidden_states, window_overlap):
        hidden_states = hidden_states.view(
            hidden_states.size(0),
            torch.div(hidden_states.size(1), (window_overlap * 2), rounding_mode="trunc"),
            window_overlap * 2,
            hidden_states.size(2),
        )
        chunk_size = list(hidden_states.size())
        chunk_size[1] = chunk_size[1] * 2 - 1
        chunk_stride = list(hidden_states.stride())
        chunk_stride[1] = chunk_stride[1] // 2
        return hidden_states.as_strided(size=chunk_size, stride=chunk_stride)

    def _sliding_chunks_query_key_matmul(self, query, key, window_overlap):
        batch_size, seq_len, num_heads, head_dim = query.size()
        chunks_count = torch.div(seq_len, window_overlap, rounding_mode="trunc") - 1
        query = query.transpose(1, 2).reshape(batch_size * num_heads, seq_len, head_dim)
        key = key.transpose(1, 2).reshape(batch_size * num_heads, seq_len, head_dim)
        query = self._chunk(query, window_overlap)
        key = self._chunk(key, window_overlap)
        diagonal_chunked_attention_scores = torch.einsum("bcxd,bcyd->bcxy", (query, key))
        diagonal_chunked_attention_scores = self._pad_and_transpose_last_two_dims(
            diagonal_chunked_attention_scores, padding=(0, 0, 0, 1)
        )
        diagonal_attention_scores = diagonal_chunked_attention_scores.new_zeros(
            (batch_size * num_heads, chunks_count + 1, window_overlap, window_overlap * 2 + 1)
        )
        diagonal_attention_scores[:, :-1, :, window_overlap:] = diagonal_chunked_attention_scores[
            :, :, :window_overlap, : window_overlap + 1
        ]
        diagonal_attention_scores[:, -1, :, window_overlap:] = diagonal_chunked_attention_scores[
            :, -1, window_overlap:, : window_overlap + 1
        ]
        diagonal_attention_scores[:, 1:, :, :window_overlap] = diagonal_chunked_attention_scores[
            :, :, -(window_overlap + 1) : -1, window_overlap + 1 :
        ]
        diagonal_attention_scores[:, 0, 1:window_overlap, 1:window_overlap] = diagonal_chunked_attention_scores[
            :, 0, : window_overlap - 1, 1 - window_overlap :
        ]
        diagonal_attention_scores = diagonal_attention_scores.view(
            batch_size, num_heads, seq_len, 2 * window_overlap + 1
        ).transpose(2, 1)
        return diagonal_attention_scores

    def _sliding_chunks_matmul_attn_probs_value(self, attn_probs, value, window_overlap):
        batch_size, seq_len, num_heads, head_dim = value.size()
        chunks_count = torch.div(seq_len, window_overlap, rounding_mode="trunc") - 1
        chunked_attn_probs = attn_probs.transpose(1, 2).reshape(
            batch_size * num_heads,
            torch.div(seq_len, window_overlap, rounding_mode="trunc"),
            window_overlap,
            2 * window_overlap + 1,
        )
        value = value.transpose(1, 2).reshape(batch_size * num_heads, seq_len, head_dim)
        padded_value = nn.functional.pad(value, (0, 0, window_overlap, window_overlap), value=-1)
        chunked_value_size = (batch_size * num_heads, chunks_count + 1, 3 * window_overlap, head_dim)
        chunked_value_stride = padded_value.stride()
        chunked_value_stride = (
            chunked_value_stride[0],
            window_overlap * chunked_value_stride[1],
            chunked_value_stride[1],
            chunked_value_stride[2],
        )
        chunked_value = padded_value.as_strided(size=chunked_value_size, stride=chunked_value_stride)
        chunked_attn_probs = self._pad_and_diagonalize(chunked_attn_probs)
        context = torch.einsum("bcwd,bcdh->bcwh", (chunked_attn_probs, chunked_value))
        return context.view(batch_size, num_heads, seq_len, head_dim).transpose(1, 2)

    def forward(self, hidden_states):
        hidden_states = hidden_states.transpose(0, 1)
        query_vectors = self.query(hidden_states)
        key_vectors = self.key(hidden_states)
        value_vectors = self.value(hidden_states)
        seq_len, batch_size, embed_dim = hidden_states.size()
        query_vectors /= math.sqrt(self.head_dim)
        query_vectors = query_vectors.view(seq_len, batch_size, self.num_heads, self.head_dim).transpose(0, 1)
        key_vectors = key_vectors.view(seq_len, batch_size, self.num_heads, self.head_dim).transpose(0, 1)
        attn_scores = self._sliding_chunks_query_key_matmul(
            query_vectors, key_vectors, self.one_sided_attn_window_size
        )
        attn_probs = nn.functional.softmax(attn_scores, dim=-1, dtype=torch.float32)
        value_vectors = value_vectors.view(seq_len, batch_size, self.num_heads, self.head_dim).transpose(0, 1)
        attn_output = self._sliding_chunks_matmul_attn_probs_value(
            attn_probs, value_vectors, self.one_sided_attn_window_size
        )
        attn_output = attn_output.transpose(0, 1).reshape(seq_len, batch_size, embed_dim).contiguous()
        return attn_output.transpose(0, 1)


class LongformerForSequenceClassificationLite(nn.Module):
    def __init__(self, hidden_size=32, num_labels=3):
        super().__init__()
        self.attention = LongformerSelfAttention(hidden_size)
        self.dense = nn.Linear(hidden_size, hidden_size)
        self.out_proj = nn.Linear(hidden_size, num_labels)

    def forward(self, hidden_states):
        sequence_output = hidden_states + self.attention(hidden_states)
        x = torch.tanh(self.dense(sequence_output[:, 0, :]))
        return self.out_proj(x)


def make_model():
    return LongformerForSequenceClassificationLite().eval()


def example_inputs():
    return (torch.randn(2, 16, 32),)


def other_inputs():
    return [(torch.randn(3, 32, 32),), (torch.randn(1, 24, 32),)]


def probe_inputs():
    return other_inputs()
