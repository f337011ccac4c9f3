"""ChatGLM-6B transformer block exported piecewise for mnn-llm (glm_block_N.onnx, KV cache passed in as a
`past_key_values` tensor): `attention_fn` concatenates the past keys/values, allocates `torch.empty(...)` from the
`.size()` values and fills it with `torch.baddbmm(..., beta=0.0)`, views the scores to `output_size`, and views the
context back with `context_layer.size()[:-2] + (hidden_size_per_partition,)`; the reporter says the ONNX file made from
this modeling_chatglm.py cannot take dynamic inputs_embeds / attention_mask / position_ids / past_key_values shapes.
The same attention_fn also skips the mask with `if not (attention_mask == 0).all():` ("if auto-regressive, skip").

Source: https://github.com/wangzhaode/mnn-llm/issues/49
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {
    "hidden_states": {0: "seq"},
    "attention_mask": {2: "seq", 3: "total_seq"},
    "past_key_values": {1: "past_seq"},
}
BLIND = "domains-29"


class SelfAttention(nn.Module):
    def __init__(self, hidden_size=64, num_attention_heads=4, layer_id=0):
        super().__init__()
        self.layer_id = layer_id
        self.hidden_size = hidden_size
        self.hidden_size_per_partition = hidden_size
        self.num_attention_heads = num_attention_heads
        self.num_attention_heads_per_partition = num_attention_heads
        self.hidden_size_per_attention_head = hidden_size // num_attention_heads
        self.scale_mask_softmax = None
        self.query_key_value = nn.Linear(hidden_size, 3 * hidden_size)
        self.dense = nn.Linear(hidden_size, hidden_size)

    def attention_fn(self, query_layer, key_layer, value_layer, attention_mask, hidden_size_per_partition,
                     layer_id, layer_past=None, scaling_attention_score=True, use_cache=False):
        if layer_past is not None:
            past_key, past_value = layer_past[0], layer_past[1]
            key_layer = torch.cat((past_key, key_layer), dim=0)
            value_layer = torch.cat((past_value, value_layer), dim=0)

        # seqlen, batch, num_attention_heads, hidden_size_per_attention_head
        seq_len, b, nh, hidden_size = key_layer.shape

        if use_cache:
            present = (key_layer, value_layer)
        else:
            present = None

        query_key_layer_scaling_coeff = float(layer_id + 1)
        if scaling_attention_score:
            query_layer = query_layer / (math.sqrt(hidden_size) * query_key_layer_scaling_coeff)

        # [b, np, sq, sk]
        output_size = (query_layer.size(1), query_layer.size(2), query_layer.size(0), key_layer.size(0))

        # [sq, b, np, hn] -> [sq, b * np, hn]
        query_layer = query_layer.view(output_size[2], output_size[0] * output_size[1], -1)
        # [sk, b, np, hn] -> [sk, b * np, hn]
        key_layer = key_layer.view(output_size[3], output_size[0] * output_size[1], -1)

        matmul_result = torch.empty(
            output_size[0] * output_size[1],
            output_size[2],
            output_size[3],
            dtype=query_layer.dtype,
            device=query_layer.device,
        )

        matmul_result = torch.baddbmm(
            matmul_result,
            query_layer.transpose(0, 1),  # [b * np, sq, hn]
            key_layer.transpose(0, 1).transpose(1, 2),  # [b * np, hn, sk]
            beta=0.0,
            alpha=1.0,
        )

        # change view to [b, np, sq, sk]
        attention_scores = matmul_result.view(*output_size)

        if self.scale_mask_softmax:
            attention_probs = self.scale_mask_softmax(attention_scores, attention_mask.contiguous())
        else:
            if not (attention_mask == 0).all():
                # if auto-regressive, skip
                attention_scores.masked_fill_(attention_mask, -10000.0)
            dtype = attention_scores.dtype
            attention_scores = attention_scores.float()
            attention_scores = attention_scores * query_key_layer_scaling_coeff
            attention_probs = F.softmax(attention_scores, dim=-1)
            attention_probs = attention_probs.type(dtype)

        # [sk, b, np, hn] --> [b, np, sq, hn]
        output_size = (value_layer.size(1), value_layer.size(2), query_layer.size(0), value_layer.size(3))
        # change view [sk, b * np, hn]
        value_layer = value_layer.view(value_layer.size(0), output_size[0] * output_size[1], -1)
        # change view [b * np, sq, sk]
        attention_probs = attention_probs.view(output_size[0] * output_size[1], output_size[2], -1)
        # matmul: [b * np, sq, hn]
        context_layer = torch.bmm(attention_probs, value_layer.transpose(0, 1))
        # change view [b, np, sq, hn]
        context_layer = context_layer.view(*output_size)
        # [b, np, sq, hn] --> [sq, b, np, hn]
        context_layer = context_layer.permute(2, 0, 1, 3).contiguous()
        # [sq, b, np, hn] --> [sq, b, hp]
        new_context_layer_shape = context_layer.size()[:-2] + (hidden_size_per_partition,)
        context_layer = context_layer.view(*new_context_layer_shape)

        return context_layer, present, attention_probs

    def forward(self, hidden_states, attention_mask, layer_past=None, use_cache=True):
        # [seq_len, batch, 3 * hidden_size]
        mixed_raw_layer = self.query_key_value(hidden_states)
        # [seq_len, batch, 3 * hidden_size] --> [seq_len, batch, num_attention_heads, 3 * hidden_size_per_attention_head]
        new_tensor_shape = mixed_raw_layer.size()[:-1] + (
            self.num_attention_heads_per_partition,
            3 * self.hidden_size_per_attention_head,
        )
        mixed_raw_layer = mixed_raw_layer.view(*new_tensor_shape)
        (query_layer, key_layer, value_layer) = mixed_raw_layer.chunk(3, dim=-1)

        context_layer, present, attention_probs = self.attention_fn(
            query_layer=query_layer,
            key_layer=key_layer,
            value_layer=value_layer,
            attention_mask=attention_mask,
            hidden_size_per_partition=self.hidden_size_per_partition,
            layer_id=self.layer_id,
            layer_past=layer_past,
            use_cache=use_cache,
        )
        output = self.dense(context_layer)
        return output, present


class GLMBlock(nn.Module):
    def __init__(self, hidden_size=64, num_attention_heads=4, layer_id=0, num_layers=28):
        super().__init__()
        self.num_layers = num_layers
        self.input_layernorm = nn.LayerNorm(hidden_size, eps=1e-5)
        self.attention = SelfAttention(hidden_size, num_attention_heads, layer_id)
        self.post_attention_layernorm = nn.LayerNorm(hidden_size, eps=1e-5)
        self.mlp = nn.Sequential(nn.Linear(hidden_size, 4 * hidden_size), nn.GELU(), nn.Linear(4 * hidden_size, hidden_size))

    def forward(self, hidden_states, attention_mask, past_key_values):
        attention_input = self.input_layernorm(hidden_states)
        attention_output, present = self.attention(attention_input, attention_mask, layer_past=past_key_values)
        alpha = (2 * self.num_layers) ** 0.5
        hidden_states = attention_input * alpha + attention_output
        mlp_input = self.post_attention_layernorm(hidden_states)
        output = mlp_input * alpha + self.mlp(mlp_input)
        return output, torch.stack(present)


def make_model():
    return GLMBlock().eval()


def _inputs(seq, past):
    hidden_states = torch.randn(seq, 1, 64)
    total = past + seq
    # True = masked; ChatGLM-6B: the context attends everywhere, new tokens are causal
    attention_mask = torch.ones(1, 1, seq, total).tril(diagonal=past) < 0.5
    past_key_values = torch.randn(2, past, 1, 4, 16)
    return hidden_states, attention_mask, past_key_values


def example_inputs():
    return _inputs(5, 3)


def other_inputs():
    return [_inputs(1, 7), _inputs(9, 2)]


def probe_inputs():
    return other_inputs()
