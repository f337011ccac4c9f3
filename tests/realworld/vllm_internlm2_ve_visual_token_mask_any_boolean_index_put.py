"""vLLM's InternLM2-VE (InternLM-XComposer2 visual expert) decoder layer: on the flat token batch it
branches on `visual_token_mask.any()` / `text_token_mask.any()` and routes tokens through two MLPs with
boolean-mask gathers and in-place `hidden_states[mask] = ...` writes; vLLM lists InternLM2VEForCausalLM as
not supported by torch.compile "because their computation graphs are too dynamic to compile".

Source: https://github.com/vllm-project/vllm/pull/11078
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"input_ids": {0: "num_tokens"}, "positions": {0: "num_tokens"},
           "visual_token_mask": {0: "num_tokens"}}
BLIND = "domains-71"


class RMSNorm(nn.Module):
    """vLLM-style RMSNorm: with a residual it returns (norm(x + residual), x + residual)."""

    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.eps = eps

    def forward(self, x, residual=None):
        if residual is not None:
            x = x + residual
            residual = x
        out = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight
        return out if residual is None else (out, residual)


class InternLM2MLP(nn.Module):
    def __init__(self, hidden_size, intermediate_size):
        super().__init__()
        self.w1 = nn.Linear(hidden_size, intermediate_size, bias=False)
        self.w3 = nn.Linear(hidden_size, intermediate_size, bias=False)
        self.w2 = nn.Linear(intermediate_size, hidden_size, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class InternLM2Attention(nn.Module):
    def __init__(self, hidden_size, num_heads, max_position_embeddings=64, base=10000.0):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = hidden_size // num_heads
        self.wqkv = nn.Linear(hidden_size, 3 * hidden_size, bias=False)
        self.wo = nn.Linear(hidden_size, hidden_size, bias=False)
        inv_freq = 1.0 / (base ** (torch.arange(0, self.head_dim, 2).float() / self.head_dim))
        freqs = torch.outer(torch.arange(max_position_embeddings).float(), inv_freq)
        self.register_buffer("cos_sin_cache", torch.cat([freqs.cos(), freqs.sin()], dim=-1), persistent=False)

    def _rotary(self, x, cos, sin):
        x1, x2 = x.chunk(2, dim=-1)
        return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)

    def forward(self, positions, hidden_states):
        n = hidden_states.shape[0]
        q, k, v = self.wqkv(hidden_states).view(n, 3, self.num_heads, self.head_dim).unbind(1)
        cos, sin = self.cos_sin_cache[positions].unsqueeze(1).chunk(2, dim=-1)
        q, k = self._rotary(q, cos, sin), self._rotary(k, cos, sin)
        out = F.scaled_dot_product_attention(q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1), is_causal=True)
        return self.wo(out.transpose(0, 1).reshape(n, -1))


class InternLM2VEDecoderLayer(nn.Module):
    def __init__(self, hidden_size=32, num_heads=4, intermediate_size=64):
        super().__init__()
        self.hidden_size = hidden_size
        self.attention = InternLM2Attention(hidden_size, num_heads)
        self.feed_forward = InternLM2MLP(hidden_size, intermediate_size)
        self.feed_forward_ve = InternLM2MLP(hidden_size, intermediate_size)
        self.attention_norm = RMSNorm(hidden_size)
        self.ffn_norm = RMSNorm(hidden_size)

    def forward(self, positions, hidden_states, residual, visual_token_mask=None):
        # Self Attention
        if residual is None:
            residual = hidden_states
            hidden_states = self.attention_norm(hidden_states)
        else:
            hidden_states, residual = self.attention_norm(hidden_states, residual)
        hidden_states = self.attention(positions=positions, hidden_states=hidden_states)

        # Fully Connected
        hidden_states, residual = self.ffn_norm(hidden_states, residual)
        if visual_token_mask is not None and visual_token_mask.any():
            visual_token_mask = visual_token_mask.repeat(1, self.hidden_size).bool()
            text_token_mask = ~visual_token_mask
            hidden_states[visual_token_mask] = self.feed_forward_ve(
                hidden_states[visual_token_mask].reshape(-1, self.hidden_size)
            ).flatten()
            if text_token_mask.any():
                hidden_states[text_token_mask] = self.feed_forward(
                    hidden_states[text_token_mask].reshape(-1, self.hidden_size)
                ).flatten()
        else:
            hidden_states = self.feed_forward(hidden_states)
        return hidden_states, residual


class InternLM2VEModel(nn.Module):
    def __init__(self, vocab_size=100, hidden_size=32, num_layers=2):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab_size, hidden_size)
        self.layers = nn.ModuleList([InternLM2VEDecoderLayer(hidden_size) for _ in range(num_layers)])
        self.norm = RMSNorm(hidden_size)

    def forward(self, input_ids, positions, visual_token_mask):
        hidden_states = self.tok_embeddings(input_ids)
        residual = None
        for layer in self.layers:
            hidden_states, residual = layer(positions, hidden_states, residual,
                                            visual_token_mask=visual_token_mask)
        hidden_states, _ = self.norm(hidden_states, residual)
        return hidden_states


def make_model():
    return InternLM2VEModel().eval()


def _tokens(n, image_start, image_len):
    """One prompt of n tokens; the image placeholder tokens sit at [image_start, image_start + image_len)."""
    mask = torch.zeros(n, 1, dtype=torch.bool)
    mask[image_start:image_start + image_len] = True
    return (torch.randint(0, 100, (n,)), torch.arange(n), mask)


def example_inputs():
    return _tokens(12, 2, 6)


def other_inputs():
    return [_tokens(20, 3, 9), _tokens(7, 0, 0)]


def probe_inputs():
    return other_inputs()
