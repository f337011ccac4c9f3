"""A RoBERTa-style sequence classifier cast with `model.to(torch.bfloat16)` and exported with
input_ids/attention_mask (dynamic batch and sequence); the report's export succeeds but
onnxruntime's CPUExecutionProvider cannot run the bf16 graph (no bfloat16 kernels for its ops).

Source: https://github.com/pytorch/pytorch/issues/143643
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"input_ids": {0: "batch_size", 1: "sequence"}, "attention_mask": {0: "batch_size", 1: "sequence"}}
BLIND = "operators-3"


class RobertaLayer(nn.Module):
    def __init__(self, hidden=64, heads=4, inter=128):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.attn_out = nn.Linear(hidden, hidden)
        self.ln1 = nn.LayerNorm(hidden, eps=1e-5)
        self.intermediate = nn.Linear(hidden, inter)
        self.output = nn.Linear(inter, hidden)
        self.ln2 = nn.LayerNorm(hidden, eps=1e-5)

    def forward(self, h, attn_mask):
        b, s, d = h.shape
        q, k, v = self.qkv(h).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        ctx = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask)
        ctx = ctx.transpose(1, 2).reshape(b, s, d)
        h = self.ln1(h + self.attn_out(ctx))
        return self.ln2(h + self.output(nn.functional.gelu(self.intermediate(h))))


class RobertaForSequenceClassification(nn.Module):
    def __init__(self, vocab=500, hidden=64, layers=2, num_labels=2, pad_id=1):
        super().__init__()
        self.pad_id = pad_id
        self.word_embeddings = nn.Embedding(vocab, hidden, padding_idx=pad_id)
        self.position_embeddings = nn.Embedding(130, hidden, padding_idx=pad_id)
        self.ln = nn.LayerNorm(hidden, eps=1e-5)
        self.layers = nn.ModuleList([RobertaLayer(hidden) for _ in range(layers)])
        self.dense = nn.Linear(hidden, hidden)
        self.out_proj = nn.Linear(hidden, num_labels)

    def forward(self, input_ids, attention_mask):
        mask = input_ids.ne(self.pad_id).int()
        position_ids = torch.cumsum(mask, dim=1).type_as(mask) * mask + self.pad_id
        h = self.word_embeddings(input_ids) + self.position_embeddings(position_ids.long())
        h = self.ln(h)
        attn_mask = attention_mask[:, None, None, :].to(torch.bool)
        for layer in self.layers:
            h = layer(h, attn_mask)
        x = torch.tanh(self.dense(h[:, 0, :]))
        return self.out_proj(x)


def make_model():
    model = RobertaForSequenceClassification()
    model = model.eval()
    model = model.to(torch.bfloat16)
    return model


def _batch(b, s):
    input_ids = torch.randint(3, 500, (b, s))
    input_ids[:, 0] = 0
    input_ids[:, -1] = 2
    attention_mask = torch.ones_like(input_ids)
    return (input_ids, attention_mask)


def example_inputs():
    return _batch(4, 12)


def other_inputs():
    return [_batch(2, 20), _batch(5, 7)]


def probe_inputs():
    return other_inputs()
