"""Qwen2.5-0.5B (transformers Qwen2Model) exported with torch.onnx.export(opset 17, dynamic batch/sequence,
input_ids only): `_prepare_4d_causal_attention_mask_with_cache_position` ORs the sliding-window mask into
the causal one in place, `diagonal_attend_mask |= sliding_attend_mask`, and the export fails with
"Exporting the operator 'aten::__ior_' to ONNX opset version 17 is not supported". The decoder stack is
trimmed to the embedding and one masked attention over the built 4D mask.

Source: https://github.com/luocf/inferunity/blob/e1ca239da18280b8d727cc005ee1e4d338be7138/docs/QWEN_CONVERSION_STATUS.md
"""
from types import SimpleNamespace

import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"input_ids": {0: "batch_size", 1: "sequence_length"}}
BLIND = "operators-27"


class SlidingWindowCache:  # stand-in for transformers.cache_utils.SlidingWindowCache
    pass


class Qwen2MaskedAttentionStub(nn.Module):
    def __init__(self, vocab_size=64, hidden_size=32):
        super().__init__()
        self.config = SimpleNamespace(sliding_window=32768)
        self.embed_tokens = nn.Embedding(vocab_size, hidden_size)
        self.q_proj = nn.Linear(hidden_size, hidden_size)
        self.k_proj = nn.Linear(hidden_size, hidden_size)
        self.v_proj = nn.Linear(hidden_size, hidden_size)

    @staticmethod
    def _prepare_4d_causal_attention_mask_with_cache_position(
        attention_mask, sequence_length, target_length, dtype, device, cache_position, batch_size, config,
        past_key_values,
    ):
        if attention_mask is not None and attention_mask.dim() == 4:
            # In this case we assume that the mask comes already in inverted form and requires no inversion or slicing.
            causal_mask = attention_mask
        else:
            min_dtype = torch.finfo(dtype).min
            causal_mask = torch.full(
                (sequence_length, target_length), fill_value=min_dtype, dtype=dtype, device=device
            )
            diagonal_attend_mask = torch.arange(target_length, device=device, dtype=dtype) > cache_position.reshape(-1, 1)
            if config.sliding_window is not None:
                # if we have sliding window, we should not attend to tokens beyond sliding window length, so we mask them out also
                # the check is needed to verify is current checkpoint was trained with sliding window or not
                if not isinstance(past_key_values, SlidingWindowCache) or sequence_length > target_length:
                    sliding_attend_mask = torch.arange(target_length, device=device, dtype=dtype) <= (
                        cache_position.reshape(-1, 1) - config.sliding_window
                    )
                    diagonal_attend_mask |= sliding_attend_mask
            causal_mask *= diagonal_attend_mask
            causal_mask = causal_mask[None, None, :, :].expand(batch_size, 1, -1, -1)
            if attention_mask is not None:
                causal_mask = causal_mask.clone()  # copy to contiguous memory for in-place edit
                if attention_mask.shape[-1] > target_length:
                    attention_mask = attention_mask[:, :target_length]
                mask_length = attention_mask.shape[-1]
                padding_mask = causal_mask[:, :, :, :mask_length] + attention_mask[:, None, None, :]
                padding_mask = padding_mask == 0
                causal_mask[:, :, :, :mask_length] = causal_mask[:, :, :, :mask_length].masked_fill(
                    padding_mask, min_dtype
                )
        return causal_mask

    def forward(self, input_ids):
        inputs_embeds = self.embed_tokens(input_ids)
        batch_size, sequence_length = input_ids.shape
        cache_position = torch.arange(0, sequence_length, device=inputs_embeds.device)
        causal_mask = self._prepare_4d_causal_attention_mask_with_cache_position(
            None, sequence_length=sequence_length, target_length=sequence_length, dtype=inputs_embeds.dtype,
            device=inputs_embeds.device, cache_position=cache_position, batch_size=batch_size,
            config=self.config, past_key_values=None,
        )
        q = self.q_proj(inputs_embeds)[:, None]
        k = self.k_proj(inputs_embeds)[:, None]
        v = self.v_proj(inputs_embeds)[:, None]
        scores = q @ k.transpose(-1, -2) / (q.shape[-1] ** 0.5) + causal_mask
        return (scores.softmax(-1) @ v)[:, 0]


def make_model():
    return Qwen2MaskedAttentionStub().eval()


def example_inputs():
    return (torch.randint(0, 64, (1, 7)),)


def other_inputs():
    return [(torch.randint(0, 64, (2, 12)),), (torch.randint(0, 64, (3, 4)),)]


def probe_inputs():
    return other_inputs()
