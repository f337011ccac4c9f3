"""A bfloat16 decoder's causal mask (transformers' Llama `_update_causal_mask` on a model cast to
bfloat16, optimum#1720): `torch.full((s, s), torch.finfo(dtype).min, dtype=dtype)`, triu, added to
the attention scores. The dynamo exporter writes the full as an Expand on bfloat16, which
onnxruntime's CPU provider has no kernel for; float32_compute, named by that error, makes the full
in float32 and casts it (finfo's min is a bfloat16 value: the same tensor) and computes the ops
onnxruntime lacks in float32 between casts."""
import torch
from torch import nn


class Bf16Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qk = nn.Linear(8, 16)

    def forward(self, x):
        q, k = self.qk(x).chunk(2, -1)
        s = x.shape[1]
        mask = torch.full((s, s), fill_value=torch.finfo(x.dtype).min, dtype=x.dtype, device=x.device)
        scores = q @ k.transpose(1, 2) + torch.triu(mask, diagonal=1)
        return scores.softmax(-1).float()


def make_model():
    torch.manual_seed(0)
    return Bf16Attention().eval().to(torch.bfloat16)


def example_inputs():
    return (torch.randn(2, 5, 8).to(torch.bfloat16),)


def probe_inputs():
    return [(torch.randn(1, 7, 8).to(torch.bfloat16),), (torch.randn(3, 4, 8).to(torch.bfloat16),)]


DYNAMIC = {0: {0: "b", 1: "s"}}
