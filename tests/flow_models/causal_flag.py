"""ONX409: transformers' GPT-2 attention (huggingface/transformers#35791) passes
`is_causal = attention_mask is None and query.shape[2] > 1` to scaled_dot_product_attention. The
legacy exporter traces the size as a tensor, the flag is a Tensor, and the op refuses it; with
`bool(...)` it exports, and a prompt of another length (static here, as the report exports
it) matches eager."""
import torch
import torch.nn.functional as F
from torch import nn


def sdpa_attention_forward(query, key, value, attention_mask, is_causal=None):
    if is_causal is None:
        is_causal = attention_mask is None and query.shape[2] > 1
    return F.scaled_dot_product_attention(query, key, value, attn_mask=attention_mask, is_causal=is_causal)


class SelfAttention(nn.Module):
    def __init__(self, dim=8, heads=2):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        return sdpa_attention_forward(q, k, v, None).transpose(1, 2).reshape(b, t, d)


def make_model():
    torch.manual_seed(0)
    return SelfAttention().eval()


def example_inputs():
    return (torch.randn(2, 5, 8),)


def probe_inputs():
    return [(torch.randn(3, 5, 8),), (torch.randn(1, 5, 8) * 2,)]


DYNAMIC = {0: {0: "batch"}}
