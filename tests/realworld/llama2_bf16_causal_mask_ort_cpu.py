"""Llama-2 causal LM exported with `--dtype bf16` (optimum-cli, model cast to torch.bfloat16): once the
bf16 scaled_dot_product_attention export works, the Llama causal/padding mask (torch.full with
finfo(dtype).min, triu, masked_fill -> ONNX Where) and the rest of the bf16 graph cannot run on
onnxruntime's CPU provider, which has no bfloat16 kernel for `Where` (and friends).

Source: https://github.com/huggingface/optimum/issues/1720
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"input_ids": {0: "batch_size", 1: "sequence_length"},
           "attention_mask": {0: "batch_size", 1: "sequence_length"}}
BLIND = "operators-7"


class LlamaRMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states.to(input_dtype)


class LlamaRotaryEmbedding(nn.Module):
    def __init__(self, dim, base=10000):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def forward(self, x, position_ids):
        inv_freq_expanded = self.inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
        position_ids_expanded = position_ids[:, None, :].float()
        freqs = (inv_freq_expanded @ position_ids_expanded).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos().to(dtype=x.dtype), emb.sin().to(dtype=x.dtype)


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=1):
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    return (q * cos) + (rotate_half(q) * sin), (k * cos) + (rotate_half(k) * sin)


class LlamaDecoderLayer(nn.Module):
    def __init__(self, hidden_size=64, num_heads=4, intermediate_size=172):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = hidden_size // num_heads
        self.q_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.k_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.v_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.o_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.gate_proj = nn.Linear(hidden_size, intermediate_size, bias=False)
        self.up_proj = nn.Linear(hidden_size, intermediate_size, bias=False)
        self.down_proj = nn.Linear(intermediate_size, hidden_size, bias=False)
        self.input_layernorm = LlamaRMSNorm(hidden_size)
        self.post_attention_layernorm = LlamaRMSNorm(hidden_size)

    def forward(self, hidden_states, causal_mask, cos, sin):
        bsz, q_len, _ = hidden_states.size()
        residual = hidden_states
        hidden_states = self.input_layernorm(hidden_states)
        query_states = self.q_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)
        key_states = self.k_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)
        value_states = self.v_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)
        query_states, key_states = apply_rotary_pos_emb(query_states, key_states, cos, sin)
        attn_output = F.scaled_dot_product_attention(query_states, key_states, value_states,
                                                     attn_mask=causal_mask, dropout_p=0.0)
        attn_output = attn_output.transpose(1, 2).contiguous().view(bsz, q_len, -1)
        hidden_states = residual + self.o_proj(attn_output)
        residual = hidden_states
        hidden_states = self.post_attention_layernorm(hidden_states)
        hidden_states = self.down_proj(F.silu(self.gate_proj(hidden_states)) * self.up_proj(hidden_states))
        return residual + hidden_states


class LlamaForCausalLM(nn.Module):
    def __init__(self, vocab_size=320, hidden_size=64, num_layers=2, num_heads=4):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, hidden_size)
        self.layers = nn.ModuleList([LlamaDecoderLayer(hidden_size, num_heads) for _ in range(num_layers)])
        self.norm = LlamaRMSNorm(hidden_size)
        self.rotary_emb = LlamaRotaryEmbedding(hidden_size // num_heads)
        self.lm_head = nn.Linear(hidden_size, vocab_size, bias=False)

    def _update_causal_mask(self, attention_mask, input_tensor):
        batch_size, seq_length = input_tensor.shape[:2]
        dtype, device = input_tensor.dtype, input_tensor.device
        min_dtype = torch.finfo(dtype).min
        causal_mask = torch.full((seq_length, seq_length), fill_value=min_dtype, dtype=dtype, device=device)
        causal_mask = torch.triu(causal_mask, diagonal=1)
        causal_mask = causal_mask[None, None, :, :].expand(batch_size, 1, -1, -1)
        if attention_mask is not None:
            causal_mask = causal_mask.clone()
            mask_length = attention_mask.shape[-1]
            padding_mask = causal_mask[..., :mask_length].eq(0.0) * attention_mask[:, None, None, :].eq(0.0)
            causal_mask[..., :mask_length] = causal_mask[..., :mask_length].masked_fill(padding_mask, min_dtype)
        return causal_mask

    def forward(self, input_ids, attention_mask):
        inputs_embeds = self.embed_tokens(input_ids)
        position_ids = attention_mask.long().cumsum(-1) - 1
        position_ids = position_ids.masked_fill(attention_mask == 0, 1)
        causal_mask = self._update_causal_mask(attention_mask, inputs_embeds)
        hidden_states = inputs_embeds
        cos, sin = self.rotary_emb(hidden_states, position_ids)
        for decoder_layer in self.layers:
            hidden_states = decoder_layer(hidden_states, causal_mask, cos, sin)
        hidden_states = self.norm(hidden_states)
        return self.lm_head(hidden_states)


def make_model():
    model = LlamaForCausalLM().eval()
    return model.to(torch.bfloat16)


def _batch(b, s):
    input_ids = torch.randint(0, 320, (b, s))
    attention_mask = torch.ones(b, s, dtype=torch.long)
    attention_mask[0, : s // 4] = 0  # left padding on the first row
    return (input_ids, attention_mask)


def example_inputs():
    return _batch(2, 16)


def other_inputs():
    return [_batch(3, 9), _batch(1, 24)]


def probe_inputs():
    return other_inputs()
