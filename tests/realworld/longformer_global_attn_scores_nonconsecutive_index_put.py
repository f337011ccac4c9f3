"""Longformer self-attention, global-attention branch: the scores of padded global slots are masked with
`global_attn_scores[is_local_index_no_global_attn_nonzero[0], :, is_local_index_no_global_attn_nonzero[1], :] = min`,
a write with non-consecutive advanced indices; the ONNX export fails with "Only consecutive 1-d tensor indices are
supported in exporting aten::index_put to ONNX" until the PR transposes the tensor so the indices are consecutive.

Source: https://github.com/huggingface/transformers/pull/17176
"""
import math

import torch
from torch import nn

CLASS = "indexing"
FAMILY = "indexing"
DYNAMIC = {"hidden_states": {0: "seq_len", 1: "batch"}, "is_index_global_attn": {0: "batch", 1: "seq_len"}}
BLIND = "domains-42"


class LongformerGlobalAttention(nn.Module):
    def __init__(self, embed_dim=32, num_heads=4):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.embed_dim = embed_dim
        self.query_global = nn.Linear(embed_dim, embed_dim)
        self.key_global = nn.Linear(embed_dim, embed_dim)
        self.value_global = nn.Linear(embed_dim, embed_dim)

    @staticmethod
    def _get_global_attn_indices(is_index_global_attn):
        """compute global attn indices required throughout forward pass"""
        # helper variable
        num_global_attn_indices = is_index_global_attn.long().sum(dim=1)
        # max number of global attn indices in batch
        max_num_global_attn_indices = num_global_attn_indices.max()
        # indices of global attn
        is_index_global_attn_nonzero = is_index_global_attn.nonzero(as_tuple=True)
        # helper variable
        is_local_index_global_attn = torch.arange(
            max_num_global_attn_indices, device=is_index_global_attn.device
        ) < num_global_attn_indices.unsqueeze(dim=-1)
        # location of the non-padding values within global attention indices
        is_local_index_global_attn_nonzero = is_local_index_global_attn.nonzero(as_tuple=True)
        # location of the padding values within global attention indices
        is_local_index_no_global_attn_nonzero = (is_local_index_global_attn == 0).nonzero(as_tuple=True)
        return (max_num_global_attn_indices, is_index_global_attn_nonzero,
                is_local_index_global_attn_nonzero, is_local_index_no_global_attn_nonzero)

    def forward(self, hidden_states, is_index_global_attn):
        seq_len, batch_size = hidden_states.shape[:2]
        (max_num_global_attn_indices, is_index_global_attn_nonzero, is_local_index_global_attn_nonzero,
         is_local_index_no_global_attn_nonzero) = self._get_global_attn_indices(is_index_global_attn)

        # prepare global hidden states
        global_attn_hidden_states = hidden_states.new_zeros(max_num_global_attn_indices, batch_size, self.embed_dim)
        global_attn_hidden_states[is_local_index_global_attn_nonzero[::-1]] = hidden_states[
            is_index_global_attn_nonzero[::-1]
        ]
        global_query_vectors_only_global = self.query_global(global_attn_hidden_states)
        global_key_vectors = self.key_global(hidden_states)
        global_value_vectors = self.value_global(hidden_states)

        global_query_vectors_only_global /= math.sqrt(self.head_dim)
        global_query_vectors_only_global = (
            global_query_vectors_only_global.contiguous()
            .view(max_num_global_attn_indices, batch_size * self.num_heads, self.head_dim)
            .transpose(0, 1)
        )  # (batch_size * self.num_heads, max_num_global_attn_indices, head_dim)
        global_key_vectors = (
            global_key_vectors.contiguous().view(-1, batch_size * self.num_heads, self.head_dim).transpose(0, 1)
        )
        global_value_vectors = (
            global_value_vectors.contiguous().view(-1, batch_size * self.num_heads, self.head_dim).transpose(0, 1)
        )

        global_attn_scores = torch.bmm(global_query_vectors_only_global, global_key_vectors.transpose(1, 2))
        global_attn_scores = global_attn_scores.view(batch_size, self.num_heads, max_num_global_attn_indices, seq_len)

        global_attn_scores[
            is_local_index_no_global_attn_nonzero[0], :, is_local_index_no_global_attn_nonzero[1], :
        ] = -10000.0

        global_attn_scores = global_attn_scores.view(batch_size * self.num_heads, max_num_global_attn_indices, seq_len)
        global_attn_probs = nn.functional.softmax(global_attn_scores, dim=-1, dtype=torch.float32)
        global_attn_output = torch.bmm(global_attn_probs, global_value_vectors)
        return global_attn_output.view(batch_size, self.num_heads, max_num_global_attn_indices, self.head_dim)


def make_model():
    return LongformerGlobalAttention().eval()


def _mask(batch, seq_len, counts):
    m = torch.zeros(batch, seq_len, dtype=torch.bool)
    for b, c in enumerate(counts):
        m[b, torch.randperm(seq_len)[:c]] = True
    return m


def example_inputs():
    return (torch.randn(16, 2, 32), _mask(2, 16, [1, 3]))


def other_inputs():
    return [(torch.randn(24, 3, 32), _mask(3, 24, [2, 4, 1])),
            (torch.randn(12, 4, 32), _mask(4, 12, [3, 1, 1, 2]))]


def probe_inputs():
    return other_inputs()
