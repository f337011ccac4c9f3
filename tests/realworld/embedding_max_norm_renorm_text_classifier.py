"""A bag-of-embeddings text classifier uses `nn.Embedding(..., max_norm=1.0)`, so every lookup first renormalises
the looked-up rows (aten::embedding_renorm_) before gathering them; the PR adds an ONNX symbolic for
embedding_renorm because exporting an Embedding with max_norm was not supported.

Source: https://github.com/pytorch/pytorch/pull/72738
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "seq"}}
BLIND = "operators-26"


class TextClassifier(nn.Module):
    def __init__(self, vocab_size=200, embed_dim=32, num_classes=5, norm_type=2.0):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, embed_dim, max_norm=1.0, norm_type=norm_type)
        self.fc = nn.Linear(embed_dim, num_classes)

    def forward(self, x):
        e = self.emb(x)                      # (B, T, D), rows renormalised to norm <= 1
        return self.fc(e.mean(dim=1))


def make_model():
    m = TextClassifier()
    with torch.no_grad():
        m.emb.weight.mul_(4.0)               # trained embeddings are larger than max_norm
    return m.eval()


def example_inputs():
    return (torch.randint(0, 200, (2, 12)),)


def other_inputs():
    return [(torch.randint(0, 200, (3, 17)),), (torch.randint(0, 200, (1, 5)),)]


def probe_inputs():
    return other_inputs()
