"""BART encoder (transformers' BartEncoderLayer, shared by PLBart/Marian/MVP...) in fp16: every layer ends with
`if hidden_states.dtype == torch.float16 and (torch.isinf(hidden_states).any() or torch.isnan(hidden_states).any()):`
clamping the activations. onnx-diagnostic lists BartEncoderLayer/PLBartEncoderLayer among the forwards that must be
rewritten before torch.export (the `or` of two data-dependent tensor bools turned into `|`, the `if` into torch.cond),
because the exporter cannot guard on the value of `.any()`.

Source: https://github.com/sdpython/onnx-diagnostic/blob/cc937c25e830a1195f73090ada9ea6bd8f670a57/onnx_diagnostic/torch_export_patches/patch_module_helper.py
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"input_ids": {0: "batch", 1: "sequence"}}
BLIND = "domains-85"


class BartConfig:
    vocab_size = 64
    d_model = 32
    encoder_attention_heads = 4
    encoder_ffn_dim = 64
    encoder_layers = 2
    dropout = 0.1
    attention_dropout = 0.0
    activation_dropout = 0.0
    max_position_embeddings = 64


class BartAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0):
        super().__init__()
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.head_dim = embed_dim // num_heads
        self.scaling = self.head_dim**-0.5
        self.k_proj = nn.Linear(embed_dim, embed_dim)
        self.v_proj = nn.Linear(embed_dim, embed_dim)
        self.q_proj = nn.Linear(embed_dim, embed_dim)
        self.out_proj = nn.Linear(embed_dim, embed_dim)

    def forward(self, hidden_states, attention_mask=None):
        bsz, tgt_len, _ = hidden_states.size()
        hidden_shape = (bsz, -1, self.num_heads, self.head_dim)
        query_states = self.q_proj(hidden_states).view(hidden_shape).transpose(1, 2) * self.scaling
        key_states = self.k_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        value_states = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        attn_weights = torch.matmul(query_states, key_states.transpose(2, 3))
        if attention_mask is not None:
            attn_weights = attn_weights + attention_mask
        attn_weights = nn.functional.softmax(attn_weights, dim=-1)
        attn_probs = nn.functional.dropout(attn_weights, p=self.dropout, training=self.training)
        attn_output = torch.matmul(attn_probs, value_states)
        attn_output = attn_output.transpose(1, 2).reshape(bsz, tgt_len, -1).contiguous()
        return self.out_proj(attn_output), attn_weights


class BartEncoderLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.embed_dim = config.d_model
        self.self_attn = BartAttention(self.embed_dim, config.encoder_attention_heads, config.attention_dropout)
        self.self_attn_layer_norm = nn.LayerNorm(self.embed_dim)
        self.dropout = config.dropout
        self.activation_fn = nn.GELU()
        self.activation_dropout = config.activation_dropout
        self.fc1 = nn.Linear(self.embed_dim, config.encoder_ffn_dim)
        self.fc2 = nn.Linear(config.encoder_ffn_dim, self.embed_dim)
        self.final_layer_norm = nn.LayerNorm(self.embed_dim)

    def forward(self, hidden_states, attention_mask=None, output_attentions=False):
        residual = hidden_states
        hidden_states, attn_weights = self.self_attn(hidden_states=hidden_states, attention_mask=attention_mask)
        hidden_states = nn.functional.dropout(hidden_states, p=self.dropout, training=self.training)
        hidden_states = residual + hidden_states
        hidden_states = self.self_attn_layer_norm(hidden_states)

        residual = hidden_states
        hidden_states = self.activation_fn(self.fc1(hidden_states))
        hidden_states = nn.functional.dropout(hidden_states, p=self.activation_dropout, training=self.training)
        hidden_states = self.fc2(hidden_states)
        hidden_states = nn.functional.dropout(hidden_states, p=self.dropout, training=self.training)
        hidden_states = residual + hidden_states
        hidden_states = self.final_layer_norm(hidden_states)

        if hidden_states.dtype == torch.float16 and (
            torch.isinf(hidden_states).any() or torch.isnan(hidden_states).any()
        ):
            clamp_value = torch.finfo(hidden_states.dtype).max - 1000
            hidden_states = torch.clamp(hidden_states, min=-clamp_value, max=clamp_value)

        outputs = (hidden_states,)
        if output_attentions:
            outputs += (attn_weights,)
        return outputs


class BartEncoder(nn.Module):
    def __init__(self, config=BartConfig()):
        super().__init__()
        self.embed_tokens = nn.Embedding(config.vocab_size, config.d_model)
        self.embed_positions = nn.Embedding(config.max_position_embeddings, config.d_model)
        self.layers = nn.ModuleList([BartEncoderLayer(config) for _ in range(config.encoder_layers)])
        self.layernorm_embedding = nn.LayerNorm(config.d_model)

    def forward(self, input_ids):
        inputs_embeds = self.embed_tokens(input_ids)
        positions = torch.arange(input_ids.shape[1], device=input_ids.device)
        hidden_states = self.layernorm_embedding(inputs_embeds + self.embed_positions(positions))
        for encoder_layer in self.layers:
            hidden_states = encoder_layer(hidden_states)[0]
        return hidden_states


def make_model():
    return BartEncoder().half().eval()


def example_inputs():
    return (torch.randint(0, 64, (2, 12)),)


def other_inputs():
    return [(torch.randint(0, 64, (3, 17)),), (torch.randint(0, 64, (1, 9)),)]


def probe_inputs():
    return other_inputs()
