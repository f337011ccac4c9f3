"""BLOOM decoder with past key/values (transformers 4.3x `BloomModel._prepare_attn_mask`): the causal part of the
boolean mask is only built `if src_length > 1`, and `_make_causal_mask` fills a `torch.empty` mask and clears the
past columns only `if past_key_values_length > 0`. Optimum's note on the patch: "when exporting the model with an
input of sequence length of 1, the attention masks will be generated incorrectly for other sequence length", so it
patches `_prepare_attn_mask` to always build the causal mask.

Source: https://github.com/huggingface/optimum/pull/1257
"""
import math

import torch
from torch import nn
from typing import Tuple

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {
    "input_ids": {0: "batch", 1: "sequence"},
    "attention_mask": {0: "batch", 1: "past_sequence_plus_sequence"},
    "past_key": {0: "batch", 2: "past_sequence"},
    "past_value": {0: "batch", 2: "past_sequence"},
}
BLIND = "domains-54"


def _make_causal_mask(
    input_ids_shape: torch.Size, device: torch.device, past_key_values_length: int
) -> torch.BoolTensor:
    """
    Make causal mask used for self-attention.
    """
    batch_size, target_length = input_ids_shape
    mask = torch.empty((target_length, target_length + past_key_values_length), dtype=torch.bool, device=device)
    # ONNX doesn't support `torch.Tensor.triu` properly, thus we use this workaround
    seq_ids = torch.arange(target_length, device=device)
    mask[:, past_key_values_length:] = seq_ids[:, None] < seq_ids[None, :]

    if past_key_values_length > 0:
        mask[:, :past_key_values_length] = False

    expanded_mask = mask[None, None, :, :].expand(batch_size, 1, target_length, target_length + past_key_values_length)
    return expanded_mask


def _expand_mask(mask: torch.Tensor, tgt_length: int) -> torch.BoolTensor:
    """
    Expands attention_mask from `[batch_size, src_length]` to `[batch_size, 1, tgt_length, src_length]`.
    """
    batch_size, src_length = mask.shape
    tgt_length = tgt_length if tgt_length is not None else src_length

    expanded_mask = ~(mask[:, None, None, :].to(torch.bool))
    return expanded_mask.expand(batch_size, 1, tgt_length, src_length)


class BloomBlockWithPast(nn.Module):
    def __init__(self, vocab_size=64, hidden_size=32, num_heads=4):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = hidden_size // num_heads
        self.word_embeddings = nn.Embedding(vocab_size, hidden_size)
        self.query_key_value = nn.Linear(hidden_size, 3 * hidden_size)
        self.dense = nn.Linear(hidden_size, hidden_size)

    def _prepare_attn_mask(
        self, attention_mask: torch.Tensor, input_shape: Tuple[int, int], past_key_values_length: int
    ) -> torch.BoolTensor:
        # create causal mask
        # [batch_size, seq_length] -> [batch_size, 1, tgt_length, src_length]
        combined_attention_mask = None
        device = attention_mask.device
        _, src_length = input_shape

        if src_length > 1:
            combined_attention_mask = _make_causal_mask(
                input_shape, device=device, past_key_values_length=past_key_values_length
            )

        # [batch_size, seq_length] -> [batch_size, 1, tgt_length, src_length]
        expanded_attn_mask = _expand_mask(attention_mask, tgt_length=src_length)
        combined_attention_mask = (
            expanded_attn_mask if combined_attention_mask is None else expanded_attn_mask | combined_attention_mask
        )

        return combined_attention_mask

    def forward(self, input_ids, attention_mask, past_key, past_value):
        batch_size, seq_length = input_ids.shape
        hidden_states = self.word_embeddings(input_ids)
        past_key_values_length = past_key.shape[2]

        causal_mask = self._prepare_attn_mask(
            attention_mask,
            input_shape=(batch_size, seq_length),
            past_key_values_length=past_key_values_length,
        )

        fused_qkv = self.query_key_value(hidden_states)
        q, k, v = fused_qkv.view(batch_size, seq_length, 3, self.num_heads, self.head_dim).unbind(2)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        k = torch.cat([past_key, k], dim=2)
        v = torch.cat([past_value, v], dim=2)

        attention_scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
        attn_weights = torch.masked_fill(attention_scores, causal_mask, torch.finfo(attention_scores.dtype).min)
        attention_probs = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(q.dtype)
        context = torch.matmul(attention_probs, v).transpose(1, 2).reshape(batch_size, seq_length, -1)
        return self.dense(context), k, v


def _step(batch, seq, past):
    input_ids = torch.randint(0, 64, (batch, seq))
    attention_mask = torch.ones(batch, past + seq, dtype=torch.int64)
    return (input_ids, attention_mask, torch.randn(batch, 4, past, 8), torch.randn(batch, 4, past, 8))


def make_model():
    return BloomBlockWithPast().eval()


def example_inputs():
    # exported as Optimum's decoder-with-past was, with one new token per step
    return _step(2, 1, 4)


def other_inputs():
    # several new tokens at once on top of a cache
    return [_step(3, 5, 6), _step(1, 3, 2)]


def probe_inputs():
    return other_inputs()
