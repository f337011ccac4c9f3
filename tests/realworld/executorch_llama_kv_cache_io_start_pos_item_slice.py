"""ExecuTorch's Llama 2 example with the KV cache passed as model I/O: the top-level forward does
`sp = start_pos.item()` and every attention layer writes the new keys/values with
`cache_k[:bsz, start_pos : start_pos + seqlen] = xk` and reads `cache_k[:bsz, 0 : start_pos + seqlen]`.
The PR reports that export now guards on the data-dependent symint because Python slicing specializes it.

Source: https://github.com/pytorch/executorch/pull/1933
"""
from dataclasses import dataclass
from typing import Optional

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {"tokens": {0: "batch"}}
BLIND = "domains-12"


class RMSNorm(torch.nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def _norm(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)

    def forward(self, x):
        output = self._norm(x.float()).type_as(x)
        return output * self.weight


@dataclass
class ModelArgs:
    dim: int = 32
    n_layers: int = 2
    n_heads: int = 4
    n_kv_heads: Optional[int] = None
    vocab_size: int = 64
    norm_eps: float = 1e-5
    max_batch_size: int = 4
    max_seq_len: int = 16
    use_kv_cache: bool = True

    def __post_init__(self):
        if self.n_kv_heads is None:
            self.n_kv_heads = self.n_heads


def precompute_freqs_cis(dim: int, end: int, theta: float = 10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, device=freqs.device)
    freqs = torch.outer(t, freqs).float()
    return torch.cos(freqs), torch.sin(freqs)


def apply_rotary_emb(xq, xk, freqs_cos, freqs_sin):
    xq_r, xq_i = xq.float().reshape(xq.shape[:-1] + (-1, 2)).unbind(-1)
    xk_r, xk_i = xk.float().reshape(xk.shape[:-1] + (-1, 2)).unbind(-1)
    shape = [d if i == 1 or i == xq_r.ndim - 1 else 1 for i, d in enumerate(xq_r.shape)]
    freqs_cos = freqs_cos.view(shape)
    freqs_sin = freqs_sin.view(shape)
    xq_out_r = xq_r * freqs_cos - xq_i * freqs_sin
    xq_out_i = xq_r * freqs_sin + xq_i * freqs_cos
    xk_out_r = xk_r * freqs_cos - xk_i * freqs_sin
    xk_out_i = xk_r * freqs_sin + xk_i * freqs_cos
    xq_out = torch.stack([xq_out_r, xq_out_i], dim=-1).flatten(3)
    xk_out = torch.stack([xk_out_r, xk_out_i], dim=-1).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


class Attention(nn.Module):
    def __init__(self, args: ModelArgs):
        super().__init__()
        self.use_kv_cache = args.use_kv_cache
        self.n_local_heads = args.n_heads
        self.n_local_kv_heads = args.n_kv_heads
        self.head_dim = args.dim // args.n_heads
        self.wq = nn.Linear(args.dim, args.n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(args.dim, args.n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(args.dim, args.n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(args.n_heads * self.head_dim, args.dim, bias=False)
        mask = torch.full((1, 1, args.max_seq_len, args.max_seq_len), float("-inf"))
        mask = torch.triu(mask, diagonal=1)
        self.register_buffer("mask", mask)

    def forward(self, x, freqs_cos, freqs_sin, start_pos=None, cache_k=None, cache_v=None):
        bsz, seqlen, _ = x.shape
        xq, xk, xv = self.wq(x), self.wk(x), self.wv(x)
        xq = xq.view(bsz, seqlen, self.n_local_heads, self.head_dim)
        xk = xk.view(bsz, seqlen, self.n_local_kv_heads, self.head_dim)
        xv = xv.view(bsz, seqlen, self.n_local_kv_heads, self.head_dim)
        xq, xk = apply_rotary_emb(xq, xk, freqs_cos, freqs_sin)

        if self.use_kv_cache:
            assert cache_k is not None and cache_v is not None
            # Replace the entry in the cache for this token
            cache_k[:bsz, start_pos : start_pos + seqlen] = xk
            cache_v[:bsz, start_pos : start_pos + seqlen] = xv
            keys = cache_k[:bsz, 0 : start_pos + seqlen]
            values = cache_v[:bsz, 0 : start_pos + seqlen]
        else:
            keys = xk
            values = xv

        xq = xq.transpose(1, 2)
        keys = keys.transpose(1, 2)
        values = values.transpose(1, 2)
        mask = torch.squeeze(self.mask[:, :, :seqlen, :seqlen], [0, 1])
        output = F.scaled_dot_product_attention(xq, keys, values, attn_mask=mask, dropout_p=0.0)
        output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1)
        return self.wo(output), cache_k, cache_v


class FeedForward(nn.Module):
    def __init__(self, dim: int, hidden_dim: int):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class TransformerBlock(nn.Module):
    def __init__(self, layer_id: int, args: ModelArgs):
        super().__init__()
        self.attention = Attention(args)
        self.feed_forward = FeedForward(dim=args.dim, hidden_dim=4 * args.dim)
        self.attention_norm = RMSNorm(args.dim, eps=args.norm_eps)
        self.ffn_norm = RMSNorm(args.dim, eps=args.norm_eps)

    def forward(self, x, freqs_cos, freqs_sin, start_pos=None, cache_k=None, cache_v=None):
        h, cache_k, cache_v = self.attention.forward(
            self.attention_norm(x), freqs_cos, freqs_sin, start_pos, cache_k, cache_v
        )
        h = x + h
        out = h + self.feed_forward(self.ffn_norm(h))
        return out, cache_k, cache_v


class Transformer(nn.Module):
    def __init__(self, params: ModelArgs):
        super().__init__()
        self.params = params
        self.n_layers = params.n_layers
        self.tok_embeddings = nn.Embedding(params.vocab_size, params.dim)
        self.layers = torch.nn.ModuleList()
        for layer_id in range(params.n_layers):
            self.layers.append(TransformerBlock(layer_id, params))
        self.norm = RMSNorm(params.dim, eps=params.norm_eps)
        self.output = nn.Linear(params.dim, params.vocab_size, bias=False)
        self.use_kv_cache = params.use_kv_cache
        freqs_cos, freqs_sin = precompute_freqs_cis(params.dim // params.n_heads, params.max_seq_len)
        self.register_buffer("freqs_cos", freqs_cos, persistent=False)
        self.register_buffer("freqs_sin", freqs_sin, persistent=False)

    def forward(self, tokens, start_pos, cache_k, cache_v):
        _bsz, seqlen = tokens.shape
        h = self.tok_embeddings(tokens)
        freqs_cos = self.freqs_cos[:seqlen]
        freqs_sin = self.freqs_sin[:seqlen]

        if self.use_kv_cache:
            sp = start_pos.item()
            # self.params.max_seq_len - 1 because of 0 based indexing, and - 1 again because our input seq len is 1
            torch._constrain_as_size(sp, min=0, max=self.params.max_seq_len - 2)

        for index, layer in enumerate(self.layers):
            if self.use_kv_cache:
                h, updated_cache_k, updated_cache_v = layer(
                    h, freqs_cos, freqs_sin, sp, cache_k[index], cache_v[index]
                )
                cache_k[index] = updated_cache_k
                cache_v[index] = updated_cache_v
            else:
                h, _, _ = layer(h, freqs_cos, freqs_sin)

        h = self.norm(h)
        logits = self.output(h)
        return (logits, cache_k, cache_v)


def make_model():
    return Transformer(ModelArgs()).eval()


def _step(bsz, start_pos):
    """One decode step: a single new token per row, caches already holding `start_pos` entries."""
    a = ModelArgs()
    head_dim = a.dim // a.n_heads
    shape = (a.n_layers, a.max_batch_size, a.max_seq_len, a.n_kv_heads, head_dim)
    return (
        torch.randint(0, a.vocab_size, (bsz, 1)),
        torch.tensor(start_pos),
        torch.randn(shape),
        torch.randn(shape),
    )


def example_inputs():
    return _step(2, 5)


def other_inputs():
    return [_step(3, 9), _step(1, 2)]


def probe_inputs():
    return other_inputs()
