"""Hugging Face BertModel in fp16 (model.half()) called with inputs_embeds and an attention mask,
exported with torch.onnx.export(dynamo=False): the sdpa attention path (boolean padding mask) leaks
float32 into the hidden states, so the encoder's LayerNormalization nodes get a float32 activation
with float16 weight/bias and onnxruntime refuses to load the model ("Type parameter (T) of Optype
(LayerNormalization) bound to different types"). dynamo=True exports it correctly.

Source: https://github.com/pytorch/pytorch/issues/190338
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"inputs_embeds": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"}}
BLIND = "operators-9"


class BertSdpaSelfAttention(nn.Module):
    def __init__(self, hidden_size=64, num_attention_heads=4):
        super().__init__()
        self.num_attention_heads = num_attention_heads
        self.attention_head_size = hidden_size // num_attention_heads
        self.all_head_size = self.num_attention_heads * self.attention_head_size
        self.query = nn.Linear(hidden_size, self.all_head_size)
        self.key = nn.Linear(hidden_size, self.all_head_size)
        self.value = nn.Linear(hidden_size, self.all_head_size)

    def forward(self, hidden_states, attention_mask):
        input_shape = hidden_states.shape[:-1]
        hidden_shape = (*input_shape, -1, self.attention_head_size)
        query_layer = self.query(hidden_states).view(hidden_shape).transpose(1, 2)
        key_layer = self.key(hidden_states).view(hidden_shape).transpose(1, 2)
        value_layer = self.value(hidden_states).view(hidden_shape).transpose(1, 2)
        attn_output = F.scaled_dot_product_attention(
            query_layer, key_layer, value_layer, attn_mask=attention_mask, dropout_p=0.0, is_causal=False
        )
        attn_output = attn_output.transpose(1, 2).contiguous()
        return attn_output.reshape(*input_shape, -1)


class BertLayer(nn.Module):
    def __init__(self, hidden_size=64, intermediate_size=256):
        super().__init__()
        self.self = BertSdpaSelfAttention(hidden_size)
        self.attn_dense = nn.Linear(hidden_size, hidden_size)
        self.attn_LayerNorm = nn.LayerNorm(hidden_size, eps=1e-12)
        self.intermediate = nn.Linear(hidden_size, intermediate_size)
        self.output = nn.Linear(intermediate_size, hidden_size)
        self.LayerNorm = nn.LayerNorm(hidden_size, eps=1e-12)

    def forward(self, hidden_states, attention_mask):
        self_outputs = self.self(hidden_states, attention_mask)
        attention_output = self.attn_LayerNorm(self.attn_dense(self_outputs) + hidden_states)
        intermediate_output = F.gelu(self.intermediate(attention_output))
        return self.LayerNorm(self.output(intermediate_output) + attention_output)


class BertModel(nn.Module):
    def __init__(self, hidden_size=64, num_hidden_layers=2):
        super().__init__()
        self.LayerNorm = nn.LayerNorm(hidden_size, eps=1e-12)
        self.layer = nn.ModuleList([BertLayer(hidden_size) for _ in range(num_hidden_layers)])

    def forward(self, inputs_embeds, attention_mask):
        # create_bidirectional_mask for sdpa: boolean [batch, 1, query, key] mask, True = attend
        batch_size, seq_length = inputs_embeds.shape[:2]
        extended_mask = attention_mask[:, None, None, :].bool().expand(batch_size, 1, seq_length, seq_length)
        hidden_states = self.LayerNorm(inputs_embeds)
        for layer_module in self.layer:
            hidden_states = layer_module(hidden_states, extended_mask)
        return hidden_states


class BertEncoderWrapper(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, inputs_embeds, attention_mask):
        return self.model(inputs_embeds=inputs_embeds, attention_mask=attention_mask)


def make_model():
    return BertEncoderWrapper(BertModel()).eval().half()


def _batch(b, s):
    attention_mask = torch.ones(b, s, dtype=torch.long)
    attention_mask[-1, s - s // 4:] = 0  # right padding on the last row
    return (torch.randn(b, s, 64, dtype=torch.float16), attention_mask)


def example_inputs():
    return _batch(2, 16)


def other_inputs():
    return [_batch(3, 9), _batch(1, 24)]


def probe_inputs():
    return other_inputs()
