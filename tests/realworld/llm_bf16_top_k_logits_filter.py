"""A bfloat16 language-model head whose top-k sampling filter keeps the k largest logits with
`torch.topk` on bf16 logits. Both exporters emit a TopK node on a bfloat16 tensor, which ONNX TopK does
not accept, so onnxruntime refuses the model ("Type 'tensor(bfloat16)' of input parameter ... of
operator (TopK) ... is invalid"); the report asks ONNX to support bfloat16 in TopK.

Source: https://github.com/onnx/onnx/issues/7134
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"hidden": {0: "batch"}}
BLIND = "operators-35"


class TopKLogitsHead(nn.Module):
    def __init__(self, dim=32, vocab=64, top_k=8):
        super().__init__()
        self.lm_head = nn.Linear(dim, vocab, bias=False).to(torch.bfloat16)
        self.top_k = top_k

    def forward(self, hidden):
        logits = self.lm_head(hidden)
        topk_values, topk_indices = torch.topk(logits, self.top_k, dim=-1)
        min_kept = topk_values[..., -1:]
        logits = logits.masked_fill(logits < min_kept, float("-inf"))
        return logits, topk_indices


def make_model():
    return TopKLogitsHead().eval()


def example_inputs():
    return (torch.randn(3, 32).to(torch.bfloat16),)


def other_inputs():
    return [(torch.randn(5, 32).to(torch.bfloat16),), (torch.randn(1, 32).to(torch.bfloat16),)]


def probe_inputs():
    return other_inputs()
