"""BigBird block-sparse attention (transformers): the random-attention adjacency list is built in NumPy from the
sequence length (`np.random.seed(seed)`, `_bigbird_block_rand_mask(from_seq_len, ...)` with `np.zeros((from_seq_length
// from_block_size - 2, r))` and `np.random.permutation`), then `torch.tensor(rand_attn)` drives the gather of random
key/value blocks; optimum dropped BigBird ONNX export because this part "is written in pure python and numpy".

Source: https://github.com/huggingface/optimum/pull/778
"""
import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "numpy-from-shape"
FAMILY = "numpy_interop"
DYNAMIC = {"hidden_states": {0: "batch", 1: "sequence"}}
BLIND = "domains-37"


class BigBirdBlockSparseAttention(nn.Module):
    def __init__(self, hidden_size=32, num_attention_heads=2, block_size=4, num_random_blocks=2, seed=0):
        super().__init__()
        self.seed = seed
        self.num_attention_heads = num_attention_heads
        self.attention_head_size = hidden_size // num_attention_heads
        self.block_size = block_size
        self.num_random_blocks = num_random_blocks
        self.query = nn.Linear(hidden_size, hidden_size)
        self.key = nn.Linear(hidden_size, hidden_size)
        self.value = nn.Linear(hidden_size, hidden_size)

    def transpose_for_scores(self, x):
        new_x_shape = x.size()[:-1] + (self.num_attention_heads, self.attention_head_size)
        return x.view(*new_x_shape).permute(0, 2, 1, 3)

    @staticmethod
    def torch_gather_b2(params, indices):
        # this operation is equivalent to tf.gather when batch_dims=2
        num_indices_to_gather = indices.shape[-2] * indices.shape[-1]
        num_indices_to_pick_from = params.shape[2]
        indices_shift = (
            torch.arange(indices.shape[0] * indices.shape[1] * num_indices_to_gather, device=indices.device)
            // num_indices_to_gather
            * num_indices_to_pick_from
        )
        flattened_indices = indices.view(-1) + indices_shift
        flattened_params = params.reshape(-1, params.shape[-2], params.shape[-1])
        out_flattened = flattened_params.index_select(0, flattened_indices)
        return out_flattened.reshape(params.shape[:2] + (num_indices_to_gather,) + params.shape[3:])

    @staticmethod
    def _bigbird_block_rand_mask(from_seq_length, to_seq_length, from_block_size, to_block_size, num_rand_blocks, last_idx=-1):
        rand_attn = np.zeros((from_seq_length // from_block_size - 2, num_rand_blocks), dtype=np.int32)
        middle_seq = np.arange(1, to_seq_length // to_block_size - 1, dtype=np.int32)
        last = to_seq_length // to_block_size - 1
        r = num_rand_blocks  # shorthand
        for i in range(1, from_seq_length // from_block_size - 1):
            start = i - 2
            end = i
            if i == 1:
                rand_attn[i - 1, :] = np.random.permutation(middle_seq[2:last])[:r]
            elif i == 2:
                rand_attn[i - 1, :] = np.random.permutation(middle_seq[3:last])[:r]
            elif i == from_seq_length // from_block_size - 3:
                rand_attn[i - 1, :] = np.random.permutation(middle_seq[:last])[:r]
            elif i == from_seq_length // from_block_size - 2:
                rand_attn[i - 1, :] = np.random.permutation(middle_seq[:last])[:r]
            else:
                if start > last:
                    start = last
                    rand_attn[i - 1, :] = np.random.permutation(middle_seq[:start])[:r]
                elif (end + 1) == last:
                    rand_attn[i - 1, :] = np.random.permutation(middle_seq[:start])[:r]
                else:
                    rand_attn[i - 1, :] = np.random.permutation(
                        np.concatenate((middle_seq[:start], middle_seq[end + 1 : last]))
                    )[:r]
        return rand_attn

    def forward(self, hidden_states):
        batch_size, seqlen, _ = hidden_states.size()
        from_block_size = to_block_size = self.block_size
        n_heads, n_rand_blocks = self.num_attention_heads, self.num_random_blocks
        query_layer = self.transpose_for_scores(self.query(hidden_states))
        key_layer = self.transpose_for_scores(self.key(hidden_states))
        value_layer = self.transpose_for_scores(self.value(hidden_states))
        from_seq_len = to_seq_len = seqlen
        bsz = batch_size
        rsqrt_d = 1 / math.sqrt(self.attention_head_size)

        # generate random attention and corresponding masks
        np.random.seed(self.seed)
        rand_attn = [
            self._bigbird_block_rand_mask(from_seq_len, to_seq_len, from_block_size, to_block_size, n_rand_blocks)
            for _ in range(n_heads)
        ]
        rand_attn = np.stack(rand_attn, axis=0)
        rand_attn = torch.tensor(rand_attn, device=query_layer.device, dtype=torch.long)
        rand_attn.unsqueeze_(0)
        rand_attn = torch.cat([rand_attn for _ in range(batch_size)], dim=0)

        blocked_query_matrix = query_layer.view(bsz, n_heads, from_seq_len // from_block_size, from_block_size, -1)
        blocked_key_matrix = key_layer.view(bsz, n_heads, to_seq_len // to_block_size, to_block_size, -1)
        blocked_value_matrix = value_layer.view(bsz, n_heads, to_seq_len // to_block_size, to_block_size, -1)

        gathered_key = self.torch_gather_b2(blocked_key_matrix, rand_attn)
        gathered_key = gathered_key.view(bsz, n_heads, to_seq_len // to_block_size - 2, n_rand_blocks * to_block_size, -1)
        gathered_value = self.torch_gather_b2(blocked_value_matrix, rand_attn)
        gathered_value = gathered_value.view(bsz, n_heads, to_seq_len // to_block_size - 2, n_rand_blocks * to_block_size, -1)

        middle_query_matrix = blocked_query_matrix[:, :, 2:-2]
        rand_band_product = torch.einsum("bhlqd,bhlkd->bhlqk", middle_query_matrix, gathered_key[:, :, 1:-1]) * rsqrt_d
        attn_weights = F.softmax(rand_band_product, dim=-1)
        return torch.einsum("bhlqk,bhlkd->bhlqd", attn_weights, gathered_value[:, :, 1:-1])


def make_model():
    return BigBirdBlockSparseAttention().eval()


def example_inputs():
    return (torch.randn(2, 32, 32),)


def other_inputs():
    return [(torch.randn(3, 48, 32),), (torch.randn(1, 40, 32),)]


def probe_inputs():
    return other_inputs()
