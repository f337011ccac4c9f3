"""T0 / T5 v1.1 encoder converted to bfloat16 (transformer-deploy t5_bf16 notebook): the encoder exports, but
onnxruntime refuses to load it: "INVALID_GRAPH ... Type 'tensor(bfloat16)' of input parameter (onnx::Pow_398)
of operator (Pow) in node (Pow_138) is invalid" (the gated-gelu feed-forward uses NewGELU's torch.pow in
bf16). Trimmed to the embedding and one T5 block with relative position buckets.

Source: https://github.com/ELS-RD/transformer-deploy/issues/118
"""
import math

import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"input_ids": {0: "batch", 1: "sequence"}}
BLIND = "domains-28"


class NewGELUActivation(nn.Module):
    def forward(self, input):
        return 0.5 * input * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (input + 0.044715 * torch.pow(input, 3.0))))


class T5LayerNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        variance = hidden_states.to(torch.float32).pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        if self.weight.dtype in [torch.float16, torch.bfloat16]:
            hidden_states = hidden_states.to(self.weight.dtype)
        return self.weight * hidden_states


class T5DenseGatedActDense(nn.Module):
    def __init__(self, d_model, d_ff):
        super().__init__()
        self.wi_0 = nn.Linear(d_model, d_ff, bias=False)
        self.wi_1 = nn.Linear(d_model, d_ff, bias=False)
        self.wo = nn.Linear(d_ff, d_model, bias=False)
        self.act = NewGELUActivation()

    def forward(self, hidden_states):
        hidden_gelu = self.act(self.wi_0(hidden_states))
        hidden_linear = self.wi_1(hidden_states)
        return self.wo(hidden_gelu * hidden_linear)


class T5Attention(nn.Module):
    def __init__(self, d_model, n_heads, num_buckets=32, max_distance=128):
        super().__init__()
        self.n_heads, self.key_value_proj_dim = n_heads, d_model // n_heads
        self.inner_dim = d_model
        self.relative_attention_num_buckets, self.relative_attention_max_distance = num_buckets, max_distance
        self.q = nn.Linear(d_model, d_model, bias=False)
        self.k = nn.Linear(d_model, d_model, bias=False)
        self.v = nn.Linear(d_model, d_model, bias=False)
        self.o = nn.Linear(d_model, d_model, bias=False)
        self.relative_attention_bias = nn.Embedding(num_buckets, n_heads)

    @staticmethod
    def _relative_position_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
        relative_buckets = 0
        if bidirectional:
            num_buckets //= 2
            relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
            relative_position = torch.abs(relative_position)
        max_exact = num_buckets // 2
        is_small = relative_position < max_exact
        relative_position_if_large = max_exact + (
            torch.log(relative_position.float() / max_exact)
            / math.log(max_distance / max_exact)
            * (num_buckets - max_exact)
        ).to(torch.long)
        relative_position_if_large = torch.min(
            relative_position_if_large, torch.full_like(relative_position_if_large, num_buckets - 1)
        )
        relative_buckets += torch.where(is_small, relative_position, relative_position_if_large)
        return relative_buckets

    def compute_bias(self, query_length, key_length):
        device = self.relative_attention_bias.weight.device
        context_position = torch.arange(query_length, dtype=torch.long, device=device)[:, None]
        memory_position = torch.arange(key_length, dtype=torch.long, device=device)[None, :]
        relative_position = memory_position - context_position
        relative_position_bucket = self._relative_position_bucket(
            relative_position, bidirectional=True, num_buckets=self.relative_attention_num_buckets,
            max_distance=self.relative_attention_max_distance,
        )
        values = self.relative_attention_bias(relative_position_bucket)
        return values.permute([2, 0, 1]).unsqueeze(0)

    def forward(self, hidden_states):
        batch_size, seq_length = hidden_states.shape[:2]

        def shape(states):
            return states.view(batch_size, -1, self.n_heads, self.key_value_proj_dim).transpose(1, 2)

        query_states = shape(self.q(hidden_states))
        key_states = shape(self.k(hidden_states))
        value_states = shape(self.v(hidden_states))
        scores = torch.matmul(query_states, key_states.transpose(3, 2))
        scores += self.compute_bias(seq_length, seq_length)
        attn_weights = nn.functional.softmax(scores.float(), dim=-1).type_as(scores)
        attn_output = torch.matmul(attn_weights, value_states)
        attn_output = attn_output.transpose(1, 2).contiguous().view(batch_size, -1, self.inner_dim)
        return self.o(attn_output)


class T5EncoderLite(nn.Module):
    def __init__(self, vocab=100, d_model=32, d_ff=64, n_heads=4):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, d_model)
        self.attn_norm = T5LayerNorm(d_model)
        self.SelfAttention = T5Attention(d_model, n_heads)
        self.ff_norm = T5LayerNorm(d_model)
        self.DenseReluDense = T5DenseGatedActDense(d_model, d_ff)
        self.final_layer_norm = T5LayerNorm(d_model)

    def forward(self, input_ids):
        hidden_states = self.embed_tokens(input_ids)
        hidden_states = hidden_states + self.SelfAttention(self.attn_norm(hidden_states))
        hidden_states = hidden_states + self.DenseReluDense(self.ff_norm(hidden_states))
        return self.final_layer_norm(hidden_states)


def make_model():
    return T5EncoderLite().to(torch.bfloat16).eval()


def example_inputs():
    return (torch.randint(0, 100, (2, 12)),)


def other_inputs():
    return [(torch.randint(0, 100, (3, 20)),), (torch.randint(0, 100, (1, 7)),)]


def probe_inputs():
    return other_inputs()
