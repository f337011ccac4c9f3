"""Transformer LM block normalised with torch.nn.RMSNorm (pre-norm residual + SwiGLU feed-forward, final
norm before the head); the user's conversion to ONNX fails with "torch.onnx.errors.UnsupportedOperatorError:
Exporting the operator 'aten::rms_norm' to ONNX opset version 20 is not supported" (ONNX only has
RMSNormalization from opset 23).

Source: https://github.com/pytorch/pytorch/issues/159249
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"input_ids": {0: "batch", 1: "seq_len"}}
BLIND = "operators-5"


class FeedForward(nn.Module):
    def __init__(self, dim, hidden_dim):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class Block(nn.Module):
    def __init__(self, dim, hidden_dim, eps=1e-6):
        super().__init__()
        self.attention_norm = nn.RMSNorm(dim, eps=eps)
        self.attn = nn.Linear(dim, dim, bias=False)
        self.ffn_norm = nn.RMSNorm(dim, eps=eps)
        self.feed_forward = FeedForward(dim, hidden_dim)

    def forward(self, x):
        h = x + self.attn(self.attention_norm(x))
        return h + self.feed_forward(self.ffn_norm(h))


class TinyLM(nn.Module):
    def __init__(self, vocab_size=512, dim=128, hidden_dim=344, n_layers=2):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab_size, dim)
        self.layers = nn.ModuleList([Block(dim, hidden_dim) for _ in range(n_layers)])
        self.norm = nn.RMSNorm(dim, eps=1e-6)
        self.output = nn.Linear(dim, vocab_size, bias=False)

    def forward(self, input_ids):
        h = self.tok_embeddings(input_ids)
        for layer in self.layers:
            h = layer(h)
        return self.output(self.norm(h))


def make_model():
    return TinyLM()


def example_inputs():
    return (torch.randint(0, 512, (2, 16)),)


def other_inputs():
    return [(torch.randint(0, 512, (3, 21)),), (torch.randint(0, 512, (1, 7)),)]


def probe_inputs():
    return other_inputs()
