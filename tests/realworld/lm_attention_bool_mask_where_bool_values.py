"""A decoder's attention-mask builder combines the padding mask and the causal mask with `torch.where`
on boolean tensors (condition, X, Y and output all bool); the report says onnxruntime has no Where
kernel for bool X/Y ("where(9) NOT_IMPLEMENTED") and asks for bool support in Where.

Source: https://github.com/microsoft/onnxruntime/issues/24127
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"hidden_states": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"}}
BLIND = "operators-12"


class MaskedSelfAttention(nn.Module):
    def __init__(self, dim=32, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, hidden_states, attention_mask):
        b, s, d = hidden_states.shape
        causal = torch.ones(s, s, dtype=torch.bool, device=hidden_states.device).tril()
        keep = attention_mask.bool()[:, None, None, :]                 # [b, 1, 1, s]
        # bool condition, bool values, bool output
        allowed = torch.where(keep, causal[None, None], torch.zeros_like(causal)[None, None])

        q, k, v = self.qkv(hidden_states).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / (d // self.heads) ** 0.5
        scores = scores.masked_fill(~allowed, -1e4)
        ctx = scores.softmax(-1) @ v
        return self.out(ctx.transpose(1, 2).reshape(b, s, d))


def make_model():
    return MaskedSelfAttention().eval()


def _mask(b, s, valid):
    m = torch.zeros(b, s, dtype=torch.long)
    for i, n in enumerate(valid):
        m[i, :n] = 1
    return m


def example_inputs():
    return (torch.randn(2, 7, 32), _mask(2, 7, [7, 4]))


def other_inputs():
    return [(torch.randn(3, 11, 32), _mask(3, 11, [11, 6, 9])), (torch.randn(1, 5, 32), _mask(1, 5, [3]))]


def probe_inputs():
    return other_inputs()
