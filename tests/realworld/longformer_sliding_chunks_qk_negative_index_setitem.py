"""Longformer (allenai/longformer) self-attention with attention_mode='sliding_chunks': the banded score
matrix is filled by slice assignments such as `diagonal_attn[:, -1, :, w:] = ...` and masked in place with
`masked_fill_` on slices; the exported model fails in onnxruntime with "ScatterND ... invalid indice found,
indice = -1".

Source: https://github.com/allenai/longformer/issues/135
"""
from functools import lru_cache

import torch
from torch import nn
import torch.nn.functional as F

CLASS = "indexing"
FAMILY = "indexing"
DYNAMIC = {"hidden_states": {0: "batch", 1: "seq_len"}}
BLIND = "domains-20"


def _skew(x, direction, padding_value):
    '''Convert diagonals into columns (or columns into diagonals depending on `direction`'''
    x_padded = F.pad(x, direction, value=padding_value)
    x_padded = x_padded.view(*x_padded.size()[:-2], x_padded.size(-1), x_padded.size(-2))
    return x_padded


def _chunk(x, w):
    '''convert into overlapping chunkings. Chunk size = 2w, overlap size = w'''
    x = x.view(x.size(0), x.size(1) // (w * 2), w * 2, x.size(2))
    chunk_size = list(x.size())
    chunk_size[1] = chunk_size[1] * 2 - 1
    chunk_stride = list(x.stride())
    chunk_stride[1] = chunk_stride[1] // 2
    return x.as_strided(size=chunk_size, stride=chunk_stride)


def sliding_chunks_matmul_qk(q: torch.Tensor, k: torch.Tensor, w: int, padding_value: float):
    bsz, seqlen, num_heads, head_dim = q.size()
    assert seqlen % (w * 2) == 0
    assert q.size() == k.size()
    chunks_count = seqlen // w - 1
    q = q.transpose(1, 2).reshape(bsz * num_heads, seqlen, head_dim)
    k = k.transpose(1, 2).reshape(bsz * num_heads, seqlen, head_dim)
    chunk_q = _chunk(q, w)
    chunk_k = _chunk(k, w)
    chunk_attn = torch.einsum('bcxd,bcyd->bcxy', (chunk_q, chunk_k))  # multiply
    diagonal_chunk_attn = _skew(chunk_attn, direction=(0, 0, 0, 1), padding_value=padding_value)
    diagonal_attn = diagonal_chunk_attn.new_empty((bsz * num_heads, chunks_count + 1, w, w * 2 + 1))
    # copy parts from diagonal_chunk_attn into the compined matrix of attentions
    diagonal_attn[:, :-1, :, w:] = diagonal_chunk_attn[:, :, :w, :w + 1]
    diagonal_attn[:, -1, :, w:] = diagonal_chunk_attn[:, -1, w:, :w + 1]
    diagonal_attn[:, 1:, :, :w] = diagonal_chunk_attn[:, :, - (w + 1):-1, w + 1:]
    diagonal_attn[:, 0, 1:w, 1:w] = diagonal_chunk_attn[:, 0, :w - 1, 1 - w:]
    diagonal_attn = diagonal_attn.view(bsz, num_heads, seqlen, 2 * w + 1).transpose(2, 1)
    mask_invalid_locations(diagonal_attn, w, 1, False)
    return diagonal_attn


def _get_invalid_locations_mask_fixed_dilation(seq_len: int, w: int, d: int):
    diagonals_list = []
    for j in range(-d * w, d, d):
        diagonal_mask = torch.zeros(seq_len, device='cpu', dtype=torch.uint8)
        diagonal_mask[:-j] = 1
        diagonals_list.append(diagonal_mask)
    return torch.stack(diagonals_list, dim=-1)


@lru_cache()
def _get_invalid_locations_mask(w: int, d: int, autoregressive: bool, device: str):
    affected_seq_len = w * d
    mask = _get_invalid_locations_mask_fixed_dilation(affected_seq_len, w, d)
    mask = mask[None, :, None, :]
    ending_mask = None if autoregressive else mask.flip(dims=(1, 3)).bool().to(device)
    return affected_seq_len, mask.bool().to(device), ending_mask


def mask_invalid_locations(input_tensor: torch.Tensor, w: int, d: int, autoregressive: bool) -> torch.Tensor:
    affected_seq_len, beginning_mask, ending_mask = _get_invalid_locations_mask(w, d, autoregressive, input_tensor.device)
    seq_len = input_tensor.size(1)
    beginning_input = input_tensor[:, :affected_seq_len, :, :w+1]
    beginning_mask = beginning_mask[:, :seq_len].expand(beginning_input.size())
    beginning_input.masked_fill_(beginning_mask, -float('inf'))
    if not autoregressive:
        ending_input = input_tensor[:, -affected_seq_len:, :, -(w+1):]
        ending_mask = ending_mask[:, -seq_len:].expand(ending_input.size())
        ending_input.masked_fill_(ending_mask, -float('inf'))


class LongformerSelfAttention(nn.Module):
    def __init__(self, hidden_size=32, num_heads=2, attention_window=4):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = hidden_size // num_heads
        self.embed_dim = hidden_size
        self.query = nn.Linear(hidden_size, self.embed_dim)
        self.key = nn.Linear(hidden_size, self.embed_dim)
        self.attention_window = attention_window

    def forward(self, hidden_states):
        hidden_states = hidden_states.transpose(0, 1)
        seq_len, bsz, embed_dim = hidden_states.size()
        q = self.query(hidden_states)
        k = self.key(hidden_states)
        q /= (self.head_dim ** 0.5)
        q = q.view(seq_len, bsz, self.num_heads, self.head_dim).transpose(0, 1)
        k = k.view(seq_len, bsz, self.num_heads, self.head_dim).transpose(0, 1)
        attn_weights = sliding_chunks_matmul_qk(q, k, self.attention_window, padding_value=0)
        attn_probs = F.softmax(attn_weights, dim=-1, dtype=torch.float32)
        return attn_probs


def make_model():
    return LongformerSelfAttention().eval()


def example_inputs():
    # sequences padded to a multiple of 2 * attention_window (pad_to_window_size)
    return (torch.randn(2, 16, 32),)


def other_inputs():
    return [(torch.randn(3, 24, 32),), (torch.randn(1, 8, 32),)]


def probe_inputs():
    return other_inputs()
