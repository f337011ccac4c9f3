"""LSG XLM-RoBERTa encoder (ccdv-ai convert_checkpoint_to_lsg, modeling_lsg_xlm_roberta.py): the encoder pads the
sequence to a multiple of block_size only `if self.adaptive and t > b and pad > 0`, and self-attention falls back to
full attention `if t <= 2 * self.block_size + self.num_global_tokens`, else runs block-local attention with a
global token. ONNX export traced with a short dummy bakes the full-attention path: the exported model is right only
for the dummy length and wrong for every other length. Tiny config (block_size=4, no sparse tokens), one layer.

Source: https://github.com/ccdv-ai/convert_checkpoint_to_lsg/issues/15
"""
import math

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"hidden_states": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 3: "sequence"}}
BLIND = "domains-7"


class BaseAttentionProduct(nn.Module):
    def forward(self, query_layer, key_layer, value_layer, attention_mask=None):
        d = query_layer.shape[-1]
        attention_scores = query_layer @ key_layer.transpose(-1, -2) / math.sqrt(d)
        if attention_mask is not None:
            attention_scores = attention_scores + attention_mask
        attention_probs = nn.Softmax(dim=-1)(attention_scores)
        return attention_probs @ value_layer


class LSGAttentionProduct(nn.Module):
    def __init__(self, block_size):
        super().__init__()
        self.block_size = block_size
        self.local_shapes = (self.block_size * 3, self.block_size)
        self.attention = BaseAttentionProduct()

    def build_lsg_inputs(self, hidden_states, global_hidden_states, is_attn_mask=False):
        local_hidden_states = self.reshape_to_local_block(hidden_states, is_attn_mask)
        n, h, b, t, d = local_hidden_states.size()
        x_global = global_hidden_states.unsqueeze(-3).expand(-1, -1, b, -1, -1)
        return torch.cat([x_global, local_hidden_states], dim=-2)

    def forward(self, query_layer, key_layer, value_layer, attention_mask, global_key, global_value, global_mask):
        n, h, t, d = query_layer.size()
        n_blocks = t // self.block_size
        assert t % self.block_size == 0
        key_layer = self.build_lsg_inputs(key_layer, global_key)
        value_layer = self.build_lsg_inputs(value_layer, global_value)
        attention_mask = self.build_lsg_inputs(attention_mask, global_mask.transpose(-1, -2), is_attn_mask=True).transpose(-1, -2)
        context_layer = self.attention(
            query_layer=query_layer.reshape(n, h, n_blocks, -1, d),
            key_layer=key_layer, value_layer=value_layer, attention_mask=attention_mask)
        return context_layer.reshape(n, h, -1, d)

    def reshape_to_local_block(self, hidden_states, is_attn_mask=False):
        size, step = self.local_shapes
        s = (size - step) // 2
        if is_attn_mask:
            pad_value = torch.finfo(hidden_states.dtype).min
            hidden_states = hidden_states.transpose(-1, -2)
        else:
            pad_value = 0
        hidden_states = torch.nn.functional.pad(hidden_states.transpose(-1, -2), pad=(s, s), value=pad_value).transpose(-1, -2)
        return hidden_states.unfold(-2, size=size, step=step).transpose(-1, -2)


class LSGSelfAttention(nn.Module):
    def __init__(self, hidden_size=32, num_heads=4, block_size=4, num_global_tokens=1):
        super().__init__()
        self.num_attention_heads, self.attention_head_size = num_heads, hidden_size // num_heads
        self.query, self.key, self.value = (nn.Linear(hidden_size, hidden_size) for _ in range(3))
        self.block_size, self.num_global_tokens = block_size, num_global_tokens
        self.attention = LSGAttentionProduct(block_size)
        self.full_attention = BaseAttentionProduct()

    def transpose_for_scores(self, x):
        x = x.view(*(x.size()[:-1] + (self.num_attention_heads, self.attention_head_size)))
        return x.permute(0, 2, 1, 3)

    def reshape_output(self, context_layer):
        context_layer = context_layer.permute(0, 2, 1, 3).contiguous()
        return context_layer.view(*(context_layer.size()[:-2] + (self.num_attention_heads * self.attention_head_size,)))

    def forward(self, hidden_states, attention_mask):
        query_layer = self.transpose_for_scores(self.query(hidden_states))
        key_layer = self.transpose_for_scores(self.key(hidden_states))
        value_layer = self.transpose_for_scores(self.value(hidden_states))
        n, h, t, d = query_layer.size()

        # Cat global mask
        attention_mask = torch.nn.functional.pad(attention_mask, (self.num_global_tokens, 0), value=0)

        # Use normal attention if local attention covers every tokens
        if t <= 2 * self.block_size + self.num_global_tokens:
            context_layer = self.full_attention(query_layer=query_layer, key_layer=key_layer, value_layer=value_layer, attention_mask=attention_mask)
            return self.reshape_output(context_layer)

        split = (self.num_global_tokens, t - self.num_global_tokens)
        global_query, query_layer = query_layer.split(split, dim=-2)
        bos = self.full_attention(query_layer=global_query, key_layer=key_layer, value_layer=value_layer, attention_mask=attention_mask)
        global_key, key_layer = key_layer.split(split, dim=-2)
        global_value, value_layer = value_layer.split(split, dim=-2)
        global_mask, attention_mask = attention_mask.split(split, dim=-1)
        attention_mask = attention_mask.expand(-1, h, -1, -1)
        global_mask = global_mask.expand(-1, h, -1, -1)
        context_layer = self.attention(query_layer, key_layer, value_layer, attention_mask,
                                       global_key=global_key, global_value=global_value, global_mask=global_mask)
        context_layer = torch.cat([bos, context_layer], dim=-2)
        return self.reshape_output(context_layer)


class LSGEncoder(nn.Module):
    def __init__(self, hidden_size=32, block_size=4, num_global_tokens=1):
        super().__init__()
        self.global_embeddings = nn.Embedding(512, embedding_dim=hidden_size)
        self.layer = LSGSelfAttention(hidden_size, 4, block_size, num_global_tokens)
        self.num_global_tokens, self.block_size, self.adaptive = num_global_tokens, block_size, True

    def forward(self, hidden_states, attention_mask):
        # embeddings: prepend the global tokens
        n, t, d = hidden_states.size()
        indexes = torch.arange(self.num_global_tokens, device=hidden_states.device).reshape(1, -1)
        global_embeddings = self.global_embeddings(indexes)
        hidden_states = torch.cat([global_embeddings.expand(n, -1, d), hidden_states], dim=-2)

        # encoder: attention_mask is the extended (n, 1, 1, t) additive mask
        mask_value = torch.finfo(attention_mask.dtype).min
        n, _, __, t = attention_mask.size()
        b = self.block_size * 2
        pad = t % self.block_size

        # Check if t is multiple of block_size and pad
        if self.adaptive and t > b and pad > 0:
            pad_length = self.block_size - pad
            hidden_states = torch.nn.functional.pad(hidden_states.transpose(-1, -2), (0, pad_length), value=0.).transpose(-1, -2)
            attention_mask = torch.nn.functional.pad(attention_mask, (0, pad_length), value=mask_value)

        sequence_output = hidden_states + self.layer(hidden_states, attention_mask)
        # Adapt sequence to initial shape
        return sequence_output[..., self.num_global_tokens: t + self.num_global_tokens, :]


def make_model():
    return LSGEncoder().eval()


def _inputs(n, t):
    return (torch.randn(n, t, 32), torch.zeros(n, 1, 1, t))


def example_inputs():
    return _inputs(2, 6)


def other_inputs():
    return [_inputs(3, 13), _inputs(1, 16)]


def probe_inputs():
    return other_inputs()
