"""BERT fine-tuned with `gradient_checkpointing=True` in its config (transformers 3.5): `BertEncoder.forward`
checks only `getattr(self.config, "gradient_checkpointing", False)`, not `self.training`, so the exported
eval model still routes every layer through `torch.utils.checkpoint.checkpoint`, and the ONNX export of
the fine-tuned model fails.

Source: https://github.com/huggingface/transformers/issues/8442
"""
import math

import torch
import torch.utils.checkpoint
from torch import nn

CLASS = "autograd-function"
FAMILY = "operators"
DYNAMIC = {"hidden_states": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 3: "sequence"}}
BLIND = "domains-85"


class Config:
    hidden_size = 32
    num_attention_heads = 4
    intermediate_size = 64
    num_hidden_layers = 2
    layer_norm_eps = 1e-12
    gradient_checkpointing = True     # set for fine-tuning, saved into config.json


class BertLayer(nn.Module):
    """BertAttention + BertIntermediate + BertOutput, trimmed."""

    def __init__(self, config):
        super().__init__()
        self.num_attention_heads = config.num_attention_heads
        self.attention_head_size = config.hidden_size // config.num_attention_heads
        self.all_head_size = self.num_attention_heads * self.attention_head_size
        self.query = nn.Linear(config.hidden_size, self.all_head_size)
        self.key = nn.Linear(config.hidden_size, self.all_head_size)
        self.value = nn.Linear(config.hidden_size, self.all_head_size)
        self.attn_out = nn.Linear(config.hidden_size, config.hidden_size)
        self.ln1 = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.intermediate = nn.Linear(config.hidden_size, config.intermediate_size)
        self.output = nn.Linear(config.intermediate_size, config.hidden_size)
        self.ln2 = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)

    def transpose_for_scores(self, x):
        new_x_shape = x.size()[:-1] + (self.num_attention_heads, self.attention_head_size)
        x = x.view(*new_x_shape)
        return x.permute(0, 2, 1, 3)

    def forward(self, hidden_states, attention_mask=None, head_mask=None, encoder_hidden_states=None,
                encoder_attention_mask=None, output_attentions=False):
        query_layer = self.transpose_for_scores(self.query(hidden_states))
        key_layer = self.transpose_for_scores(self.key(hidden_states))
        value_layer = self.transpose_for_scores(self.value(hidden_states))
        attention_scores = torch.matmul(query_layer, key_layer.transpose(-1, -2))
        attention_scores = attention_scores / math.sqrt(self.attention_head_size)
        if attention_mask is not None:
            attention_scores = attention_scores + attention_mask
        attention_probs = nn.Softmax(dim=-1)(attention_scores)
        context_layer = torch.matmul(attention_probs, value_layer).permute(0, 2, 1, 3).contiguous()
        context_layer = context_layer.view(*(context_layer.size()[:-2] + (self.all_head_size,)))
        attention_output = self.ln1(self.attn_out(context_layer) + hidden_states)
        layer_output = self.ln2(self.output(nn.functional.gelu(self.intermediate(attention_output))) + attention_output)
        outputs = (layer_output, attention_probs) if output_attentions else (layer_output,)
        return outputs


class BertEncoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.layer = nn.ModuleList([BertLayer(config) for _ in range(config.num_hidden_layers)])

    def forward(self, hidden_states, attention_mask=None, head_mask=None, encoder_hidden_states=None,
                encoder_attention_mask=None, output_attentions=False):
        for i, layer_module in enumerate(self.layer):
            layer_head_mask = head_mask[i] if head_mask is not None else None

            if getattr(self.config, "gradient_checkpointing", False):

                def create_custom_forward(module):
                    def custom_forward(*inputs):
                        return module(*inputs, output_attentions)

                    return custom_forward

                layer_outputs = torch.utils.checkpoint.checkpoint(
                    create_custom_forward(layer_module),
                    hidden_states,
                    attention_mask,
                    layer_head_mask,
                    encoder_hidden_states,
                    encoder_attention_mask,
                )
            else:
                layer_outputs = layer_module(
                    hidden_states,
                    attention_mask,
                    layer_head_mask,
                    encoder_hidden_states,
                    encoder_attention_mask,
                    output_attentions,
                )
            hidden_states = layer_outputs[0]
        return hidden_states


def make_model():
    return BertEncoder(Config()).eval()


def _mask(b, s):
    m = torch.ones(b, s)
    m[0, s // 2:] = 0.0
    return (1.0 - m[:, None, None, :]) * -10000.0    # the extended attention mask BertModel builds


def example_inputs():
    return (torch.randn(2, 12, 32), _mask(2, 12))


def other_inputs():
    return [(torch.randn(3, 7, 32), _mask(3, 7)), (torch.randn(1, 20, 32), _mask(1, 20))]


def probe_inputs():
    return other_inputs()
