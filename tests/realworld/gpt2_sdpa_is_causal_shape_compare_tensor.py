"""GPT-2 decoder of a vision-encoder-decoder (add_cross_attention=True) exported "with past": GPT2Attention computes
`is_causal = attention_mask is None and query_states.shape[-2] > 1 and not is_cross_attention` and hands it to
`scaled_dot_product_attention`. Under ONNX tracing the shape comparison is a tensor, so for the one-token decoder step
`is_causal` is a Tensor and the export fails with "scaled_dot_product_attention(): argument 'is_causal' must be bool,
not Tensor".

Source: https://github.com/huggingface/transformers/pull/35791
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {
    "input_ids": {0: "batch"},
    "past_key": {0: "batch", 2: "past_sequence_length"},
    "past_value": {0: "batch", 2: "past_sequence_length"},
    "encoder_hidden_states": {0: "batch", 1: "encoder_sequence_length"},
}
BLIND = "domains-13"


class GPT2Config:
    vocab_size = 100
    n_positions = 64
    n_embd = 32
    n_head = 4
    layer_norm_epsilon = 1e-5


def sdpa_attention_forward(module, query, key, value, attention_mask, dropout=0.0, scaling=None, is_causal=None, **kwargs):
    causal_mask = attention_mask
    if attention_mask is not None:
        causal_mask = causal_mask[:, :, :, : key.shape[-2]]

    query = query.contiguous()
    key = key.contiguous()
    value = value.contiguous()

    if is_causal is None:
        is_causal = causal_mask is None and query.shape[2] > 1

    attn_output = torch.nn.functional.scaled_dot_product_attention(
        query, key, value, attn_mask=causal_mask, dropout_p=dropout, scale=scaling, is_causal=is_causal,
    )
    attn_output = attn_output.transpose(1, 2).contiguous()
    return attn_output, None


class GPT2Attention(nn.Module):
    def __init__(self, config, is_cross_attention=False):
        super().__init__()
        self.embed_dim = config.n_embd
        self.num_heads = config.n_head
        self.head_dim = self.embed_dim // self.num_heads
        self.split_size = self.embed_dim
        self.is_cross_attention = is_cross_attention
        if self.is_cross_attention:
            self.c_attn = nn.Linear(self.embed_dim, 2 * self.embed_dim)
            self.q_attn = nn.Linear(self.embed_dim, self.embed_dim)
        else:
            self.c_attn = nn.Linear(self.embed_dim, 3 * self.embed_dim)
        self.c_proj = nn.Linear(self.embed_dim, self.embed_dim)

    def forward(self, hidden_states, layer_past=None, attention_mask=None, encoder_hidden_states=None,
                encoder_attention_mask=None, use_cache=False):
        is_cross_attention = encoder_hidden_states is not None
        if is_cross_attention:
            query_states = self.q_attn(hidden_states)
            key_states, value_states = self.c_attn(encoder_hidden_states).split(self.split_size, dim=2)
            attention_mask = encoder_attention_mask
        else:
            query_states, key_states, value_states = self.c_attn(hidden_states).split(self.split_size, dim=2)

        shape_q = (*query_states.shape[:-1], -1, self.head_dim)
        shape_kv = (*key_states.shape[:-1], -1, self.head_dim)

        query_states = query_states.view(shape_q).transpose(1, 2)
        key_states = key_states.view(shape_kv).transpose(1, 2)
        value_states = value_states.view(shape_kv).transpose(1, 2)

        if layer_past is not None:
            past_key, past_value = layer_past
            key_states = torch.cat((past_key, key_states), dim=-2)
            value_states = torch.cat((past_value, value_states), dim=-2)

        if use_cache is True:
            present = (key_states, value_states)
        else:
            present = None

        is_causal = attention_mask is None and query_states.shape[-2] > 1 and not is_cross_attention

        attn_output, attn_weights = sdpa_attention_forward(
            self, query_states, key_states, value_states, attention_mask, dropout=0.0, is_causal=is_causal,
        )

        attn_output = attn_output.reshape(*attn_output.shape[:-2], -1).contiguous()
        attn_output = self.c_proj(attn_output)
        return attn_output, present


class GPT2DecoderWithPast(nn.Module):
    """wte/wpe + one GPT2Block with cross-attention + ln_f/lm_head: the decoder half of VisionEncoderDecoder."""

    def __init__(self, config=GPT2Config()):
        super().__init__()
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        self.wpe = nn.Embedding(config.n_positions, config.n_embd)
        self.ln_1 = nn.LayerNorm(config.n_embd, eps=config.layer_norm_epsilon)
        self.attn = GPT2Attention(config)
        self.ln_cross_attn = nn.LayerNorm(config.n_embd, eps=config.layer_norm_epsilon)
        self.crossattention = GPT2Attention(config, is_cross_attention=True)
        self.ln_2 = nn.LayerNorm(config.n_embd, eps=config.layer_norm_epsilon)
        self.mlp = nn.Sequential(nn.Linear(config.n_embd, 4 * config.n_embd), nn.GELU(approximate="tanh"),
                                 nn.Linear(4 * config.n_embd, config.n_embd))
        self.ln_f = nn.LayerNorm(config.n_embd, eps=config.layer_norm_epsilon)
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)

    def forward(self, input_ids, past_key, past_value, encoder_hidden_states):
        input_shape = input_ids.size()
        past_length = past_key.size(-2)
        position_ids = torch.arange(past_length, input_shape[-1] + past_length, dtype=torch.long, device=input_ids.device)
        position_ids = position_ids.unsqueeze(0)
        hidden_states = self.wte(input_ids) + self.wpe(position_ids)

        residual = hidden_states
        attn_output, present = self.attn(self.ln_1(hidden_states), layer_past=(past_key, past_value), use_cache=True)
        hidden_states = attn_output + residual

        residual = hidden_states
        cross_output, _ = self.crossattention(self.ln_cross_attn(hidden_states), encoder_hidden_states=encoder_hidden_states)
        hidden_states = residual + cross_output

        hidden_states = hidden_states + self.mlp(self.ln_2(hidden_states))
        logits = self.lm_head(self.ln_f(hidden_states))
        return logits, present[0], present[1]


def make_model():
    return GPT2DecoderWithPast().eval()


def _inputs(batch, past, enc):
    return (torch.randint(0, 100, (batch, 1)), torch.randn(batch, 4, past, 8), torch.randn(batch, 4, past, 8),
            torch.randn(batch, enc, 32))


def example_inputs():
    return _inputs(2, 5, 7)


def other_inputs():
    return [_inputs(3, 9, 12), _inputs(1, 2, 4)]


def probe_inputs():
    return other_inputs()
