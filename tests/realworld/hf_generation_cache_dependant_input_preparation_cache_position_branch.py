"""transformers generation step: `_cache_dependant_input_preparation` keeps only the unprocessed tokens with Python
branches on the cache positions, `elif inputs_embeds is not None or (cache_position[-1] >= input_ids.shape[1])`
(a tensor value) then `input_ids[:, cache_position]`; onnxruntime's LLM export had to patch it (rewritten with
torch.cond "to make it exportable with torch.export.export"). Here a one-layer decoder step with a KV cache.

Source: https://github.com/microsoft/onnxruntime/pull/24302
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {
    "input_ids": {0: "batch", 1: "total_len"},
    "cache_position": {0: "new_len"},
    "past_key": {0: "batch", 2: "past_len"},
    "past_value": {0: "batch", 2: "past_len"},
}
BLIND = "domains-34"


class DecoderStep(nn.Module):
    def __init__(self, vocab_size=50, hidden=16, heads=2):
        super().__init__()
        self.heads = heads
        self.embed_tokens = nn.Embedding(vocab_size, hidden)
        self.qkv_proj = nn.Linear(hidden, 3 * hidden)
        self.lm_head = nn.Linear(hidden, vocab_size)

    def _cache_dependant_input_preparation(self, input_ids, inputs_embeds, cache_position):
        if inputs_embeds is not None and input_ids.shape[1] == 0:  # Exception 4
            inputs_embeds = inputs_embeds[:, -cache_position.shape[0]:]
        elif inputs_embeds is not None or (  # Exception 1
            cache_position[-1] >= input_ids.shape[1]
        ):  # Exception 3
            input_ids = input_ids[:, -cache_position.shape[0]:]
        elif (
            input_ids.shape[1] != cache_position.shape[0]
        ):  # Default case (the "else", a no op, is Exception 2)
            input_ids = input_ids[:, cache_position]
        return inputs_embeds, input_ids

    def forward(self, input_ids, cache_position, past_key, past_value):
        inputs_embeds, input_ids = self._cache_dependant_input_preparation(input_ids, None, cache_position)
        x = self.embed_tokens(input_ids)
        b, s, d = x.shape
        q, k, v = self.qkv_proj(x).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        k = torch.cat([past_key, k], dim=2)
        v = torch.cat([past_value, v], dim=2)
        causal = cache_position[:, None] >= torch.arange(k.shape[2], device=x.device)[None, :]
        h = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=causal)
        return self.lm_head(h.transpose(1, 2).reshape(b, s, d)), k, v


def _step(bsz, past_len, new_len):
    total = past_len + new_len
    return (
        torch.randint(0, 50, (bsz, total)),
        torch.arange(past_len, total),
        torch.randn(bsz, 2, past_len, 8),
        torch.randn(bsz, 2, past_len, 8),
    )


def make_model():
    return DecoderStep().eval()


def example_inputs():
    return _step(2, 6, 2)


def other_inputs():
    return [_step(3, 9, 3), _step(1, 4, 5)]


def probe_inputs():
    return other_inputs()
