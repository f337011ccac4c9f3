"""Character/word embedder of an NLP model: a char CNN pools each word over its full length with
`F.max_pool1d(x4, x4.size(2)).squeeze()`; under torch.onnx.export `x4.size(2)` is not the plain Python
int the eager run sees, so the pooling kernel (an ONNX attribute) cannot follow the word length.

Source: https://github.com/pytorch/pytorch/issues/11296
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"chars": {0: "words", 1: "word_len"}, "words": {0: "words"}}
BLIND = "domains-20"


class CharWordEmbedder(nn.Module):
    def __init__(self, n_chars=60, char_dim=16, n_words=100, word_dim=24, n_filters=32, kernel=3):
        super().__init__()
        self.char_emb = nn.Embedding(n_chars, char_dim, padding_idx=0)
        self.word_emb = nn.Embedding(n_words, word_dim)
        self.conv = nn.Conv1d(char_dim, n_filters, kernel, padding=1)

    def forward(self, chars, words):
        x1 = self.char_emb(chars)             # words x word_len x char_dim
        x2 = x1.transpose(1, 2)               # words x char_dim x word_len
        x3 = self.conv(x2)
        x4 = F.relu(x3)
        x5 = F.max_pool1d(x4, x4.size(2)).squeeze()   # words x n_filters
        w = self.word_emb(words)
        return torch.cat([w, x5], dim=-1)


def make_model():
    return CharWordEmbedder().eval()


def example_inputs():
    return (torch.randint(1, 60, (5, 8)), torch.randint(0, 100, (5,)))


def other_inputs():
    return [
        (torch.randint(1, 60, (7, 12)), torch.randint(0, 100, (7,))),
        (torch.randint(1, 60, (3, 5)), torch.randint(0, 100, (3,))),
    ]


def probe_inputs():
    return other_inputs()
