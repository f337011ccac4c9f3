"""Gemma-2 decoder layer (transformers `Gemma2DecoderLayer`) on its sliding-window layers: before attention the 4D
mask `[bs, 1, q_len, max_cache_len]` is cut down to the window, offset by how far generation has gone past it:
`offset = cache_position[-1] - effective_seq_len + 1; offset = max(0, offset)` -- Python's `max` on a tensor taken
from the `cache_position` input -- then `mask_indexes += offset`. The PR making the hybrid (sliding-window) cache
exportable replaces this `max(0, offset)` with `torch.clamp(offset, min=0)`.
(One sliding layer, the decoding step (q_len 1) with the window's keys/values already read from the cache and given
as inputs; tiny dims, window 8 in a 16-long cache; left-padded batches as in batched generation.)

Source: https://github.com/huggingface/transformers/pull/37623
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "scalars"
DYNAMIC = {
    "hidden_states": {0: "batch"},
    "attention_mask": {0: "batch"},
    "key_states": {0: "batch"},
    "value_states": {0: "batch"},
}
BLIND = "domains-36"


class Gemma2Config:
    hidden_size = 32
    num_attention_heads = 2
    num_key_value_heads = 2
    head_dim = 16
    query_pre_attn_scalar = 16
    attn_logit_softcapping = 50.0
    sliding_window = 8
    max_cache_len = 16
    rms_norm_eps = 1e-6
    _attn_implementation = "eager"


class Gemma2RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.zeros(dim))

    def _norm(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)

    def forward(self, x):
        output = self._norm(x.float())
        output = output * (1.0 + self.weight.float())
        return output.type_as(x)


class Gemma2Attention(nn.Module):
    def __init__(self, config, layer_idx):
        super().__init__()
        self.config = config
        self.head_dim = config.head_dim
        self.scaling = config.query_pre_attn_scalar**-0.5
        self.attn_logit_softcapping = config.attn_logit_softcapping
        self.q_proj = nn.Linear(config.hidden_size, config.num_attention_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(config.num_attention_heads * self.head_dim, config.hidden_size, bias=False)

    def forward(self, hidden_states, attention_mask, key_states, value_states):
        input_shape = hidden_states.shape[:-1]
        hidden_shape = (*input_shape, -1, self.head_dim)
        query_states = self.q_proj(hidden_states).view(hidden_shape).transpose(1, 2)

        attn_weights = torch.matmul(query_states, key_states.transpose(2, 3)) * self.scaling
        attn_weights = attn_weights / self.attn_logit_softcapping
        attn_weights = torch.tanh(attn_weights)
        attn_weights = attn_weights * self.attn_logit_softcapping
        if attention_mask is not None:  # no matter the length, we just slice it
            causal_mask = attention_mask[:, :, :, : key_states.shape[-2]]
            attn_weights = attn_weights + causal_mask
        attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query_states.dtype)
        attn_output = torch.matmul(attn_weights, value_states)
        attn_output = attn_output.transpose(1, 2).contiguous()
        attn_output = attn_output.reshape(*input_shape, -1).contiguous()
        return self.o_proj(attn_output)


class Gemma2DecoderLayer(nn.Module):
    def __init__(self, config, layer_idx=0):
        super().__init__()
        self.config = config
        self.is_sliding = not bool(layer_idx % 2)
        self.sliding_window = config.sliding_window
        self.self_attn = Gemma2Attention(config, layer_idx)
        self.input_layernorm = Gemma2RMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.post_attention_layernorm = Gemma2RMSNorm(config.hidden_size, eps=config.rms_norm_eps)

    def forward(self, hidden_states, attention_mask, cache_position, key_states, value_states):
        if self.is_sliding and attention_mask is not None:  # efficient SDPA and no padding
            # In prefill, we may be larger than sliding window
            effective_seq_len = max(cache_position.shape[0], self.sliding_window)
            # For FA2, the mask is 2D and is of shape [bs, processed_tokens] (not [bs, max_cache_len]),
            # thus we must slice from the right (at most `effective_seq_len` elements)
            if self.config._attn_implementation == "flash_attention_2":
                attention_mask = attention_mask[:, -effective_seq_len:]
            # Otherwise, the mask is 4D of shape [bs, 1, query_len, max_cache_len] thus we must slice
            # from the left, with an offset if we are beyond the sliding window
            else:
                min_dtype = torch.finfo(attention_mask.dtype).min
                sliding_window_mask = torch.tril(
                    torch.ones_like(attention_mask, dtype=torch.bool), diagonal=-self.sliding_window
                )
                attention_mask = torch.where(sliding_window_mask, min_dtype, attention_mask)
                # In case we are beyond the sliding window, we need to correctly offset the mask slicing
                offset = cache_position[-1] - effective_seq_len + 1
                # Should only be used when beyond the sliding window (i.e. offset > 0)
                offset = max(0, offset)
                # equivalent to: `attention_mask = attention_mask[:, :, :, offset : offset + effective_seq_len]`,
                # but without data-dependent slicing (i.e. torch.compile friendly)
                mask_indexes = torch.arange(
                    min(effective_seq_len, attention_mask.shape[-1]), device=attention_mask.device
                )
                mask_indexes += offset
                attention_mask = attention_mask[:, :, :, mask_indexes]

        residual = hidden_states
        hidden_states = self.input_layernorm(hidden_states)
        hidden_states = self.self_attn(hidden_states, attention_mask, key_states, value_states)
        hidden_states = self.post_attention_layernorm(hidden_states)
        return residual + hidden_states


def make_model():
    return Gemma2DecoderLayer(Gemma2Config()).eval()


def _decode_inputs(batch, pos, pads):
    """One decoding step at position `pos`: the 4D mask from a left-padded 2D mask, as generate() builds it."""
    c = Gemma2Config()
    min_dtype = torch.finfo(torch.float32).min
    mask = torch.full((batch, 1, 1, c.max_cache_len), min_dtype)
    for b, pad in enumerate(pads):
        mask[b, :, :, pad : pos + 1] = 0.0
    return (
        torch.randn(batch, 1, c.hidden_size),
        mask,
        torch.tensor([pos]),
        torch.randn(batch, c.num_key_value_heads, c.sliding_window, c.head_dim),
        torch.randn(batch, c.num_key_value_heads, c.sliding_window, c.head_dim),
    )


def example_inputs():
    # still inside the window (position 5 < 8)
    return _decode_inputs(2, 5, pads=[0, 2])


def other_inputs():
    # past the window: the mask has to be read from an offset
    return [_decode_inputs(3, 11, pads=[0, 5, 6]), _decode_inputs(1, 14, pads=[9])]


def probe_inputs():
    return other_inputs()
