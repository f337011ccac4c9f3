"""A bert-tiny style text classifier made smaller with
`torch.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)` and then exported
with torch.onnx.export (input ids + attention mask, dynamic batch); the report says the quantized
model does not convert to ONNX (`quantized::linear_dynamic` is not supported by the exporter).

Source: https://github.com/pytorch/pytorch/issues/90986
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"}}
BLIND = "operators-3"


class TinyBertLayer(nn.Module):
    def __init__(self, hidden=128, heads=2, inter=512):
        super().__init__()
        self.heads = heads
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)
        self.attn_out = nn.Linear(hidden, hidden)
        self.ln1 = nn.LayerNorm(hidden, eps=1e-12)
        self.intermediate = nn.Linear(hidden, inter)
        self.output = nn.Linear(inter, hidden)
        self.ln2 = nn.LayerNorm(hidden, eps=1e-12)

    def forward(self, h, ext_mask):
        b, s, d = h.shape
        def split(t):
            return t.view(b, s, self.heads, d // self.heads).transpose(1, 2)
        q, k, v = split(self.query(h)), split(self.key(h)), split(self.value(h))
        scores = q @ k.transpose(-1, -2) / (d // self.heads) ** 0.5 + ext_mask
        ctx = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, s, d)
        h = self.ln1(h + self.attn_out(ctx))
        return self.ln2(h + self.output(nn.functional.gelu(self.intermediate(h))))


class BertTinyClassifier(nn.Module):
    def __init__(self, vocab=1000, hidden=128, layers=2, num_labels=2):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, hidden)
        self.position_embeddings = nn.Embedding(512, hidden)
        self.ln = nn.LayerNorm(hidden, eps=1e-12)
        self.layers = nn.ModuleList([TinyBertLayer(hidden) for _ in range(layers)])
        self.pooler = nn.Linear(hidden, hidden)
        self.classifier = nn.Linear(hidden, num_labels)

    def forward(self, input_ids, attention_mask):
        pos = torch.arange(input_ids.shape[1], device=input_ids.device).unsqueeze(0)
        h = self.ln(self.word_embeddings(input_ids) + self.position_embeddings(pos))
        ext_mask = (1.0 - attention_mask[:, None, None, :].float()) * -10000.0
        for layer in self.layers:
            h = layer(h, ext_mask)
        pooled = torch.tanh(self.pooler(h[:, 0]))
        return self.classifier(pooled)


def make_model():
    model = BertTinyClassifier().eval()
    quantized_model = torch.quantization.quantize_dynamic(
        model, {torch.nn.Linear}, dtype=torch.qint8
    )
    return quantized_model


def _batch(b, s):
    ids = torch.randint(0, 1000, (b, s))
    mask = torch.ones(b, s, dtype=torch.long)
    mask[:, s - 2:] = 0
    return (ids, mask)


def example_inputs():
    return _batch(2, 16)


def other_inputs():
    return [_batch(3, 24), _batch(1, 9)]


def probe_inputs():
    return other_inputs()
