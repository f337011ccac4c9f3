"""LLaMA's reference attention keeps its KV cache as plain tensor attributes, reassigns them
(`self.cache_k = self.cache_k.to(xq)`) and writes the new keys into them before attending over the
cache: torch.export refuses to mutate a module attribute ("Constant ... is mutated in the forward
method"), and the legacy tracer fails on the cache written with a value that requires grad."""
import torch
from torch import nn


class CachedAttention(nn.Module):
    def __init__(self, dim=8, max_batch=4, max_len=16):
        super().__init__()
        self.wq, self.wk, self.wv = nn.Linear(dim, dim), nn.Linear(dim, dim), nn.Linear(dim, dim)
        self.cache_k = torch.zeros(max_batch, max_len, dim)
        self.cache_v = torch.zeros(max_batch, max_len, dim)

    def forward(self, x):
        bsz, seqlen, _ = x.shape
        xq, xk, xv = self.wq(x), self.wk(x), self.wv(x)
        self.cache_k = self.cache_k.to(xq)
        self.cache_v = self.cache_v.to(xq)
        self.cache_k[:bsz, :seqlen] = xk
        self.cache_v[:bsz, :seqlen] = xv
        keys, values = self.cache_k[:bsz, :seqlen], self.cache_v[:bsz, :seqlen]
        return torch.softmax(xq @ keys.transpose(1, 2), -1) @ values


def make_model():
    torch.manual_seed(0)
    return CachedAttention().eval()


def example_inputs():
    torch.manual_seed(1)
    return (torch.randn(2, 6, 8),)


def probe_inputs():
    torch.manual_seed(2)
    return [(torch.randn(3, 9, 8),), (torch.randn(1, 4, 8),)]
