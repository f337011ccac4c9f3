"""PARSeq's iterative refinement builds the decoder padding mask with
`tgt_padding_mask = ((tgt_in == self.eos_id).cumsum(-1) > 0)`, a cumsum over a bool tensor; the exported ONNX
graph carries a CumSum node whose input is tensor(bool), which ONNX/onnxruntime (and onnx2tf, whose PR casts to
INT32 as a workaround) do not accept.

Source: https://github.com/PINTO0309/onnx2tf/pull/246
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"logits": {0: "batch"}, "memory": {0: "batch", 1: "num_patches"}}
BLIND = "operators-30"


class PARSeqRefine(nn.Module):
    def __init__(self, num_tokens=12, embed_dim=32, num_heads=4, max_label_length=7, refine_iters=1):
        super().__init__()
        self.eos_id = 0
        self.bos_id = num_tokens - 2
        self.pad_id = num_tokens - 1
        self.refine_iters = refine_iters
        self.text_embed = nn.Embedding(num_tokens, embed_dim)
        self.pos_queries = nn.Parameter(torch.randn(1, max_label_length + 1, embed_dim) * 0.02)
        self.cross_attn = nn.MultiheadAttention(embed_dim, num_heads, batch_first=True)
        self.self_attn = nn.MultiheadAttention(embed_dim, num_heads, batch_first=True)
        self.head = nn.Linear(embed_dim, num_tokens - 2)

    def decode(self, tgt_in, memory, tgt_padding_mask, tgt_query):
        tgt = self.text_embed(tgt_in)
        tgt_query = tgt_query + self.self_attn(tgt_query, tgt, tgt, key_padding_mask=tgt_padding_mask)[0]
        return tgt_query + self.cross_attn(tgt_query, memory, memory)[0]

    def forward(self, logits, memory):
        bs = logits.shape[0]
        pos_queries = self.pos_queries.expand(bs, -1, -1)
        if self.refine_iters:
            bos = torch.full((bs, 1), self.bos_id, dtype=torch.long, device=logits.device)
            for i in range(self.refine_iters):
                # Prior context is the previous output.
                tgt_in = torch.cat([bos, logits[:, :-1].argmax(-1)], dim=1)
                tgt_padding_mask = ((tgt_in == self.eos_id).cumsum(-1) > 0)  # mask tokens beyond the first EOS token.
                tgt_out = self.decode(tgt_in, memory, tgt_padding_mask, tgt_query=pos_queries[:, :tgt_in.shape[1]])
                logits = self.head(tgt_out)
        return logits


def make_model():
    return PARSeqRefine()


def example_inputs():
    return (torch.randn(2, 8, 10), torch.randn(2, 16, 32))


def other_inputs():
    return [(torch.randn(3, 8, 10), torch.randn(3, 24, 32)), (torch.randn(1, 8, 10), torch.randn(1, 9, 32))]


def probe_inputs():
    return other_inputs()
