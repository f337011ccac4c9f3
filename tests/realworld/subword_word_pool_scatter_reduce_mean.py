"""Transformer token classifier that pools sub-word token states into word slots with
`Tensor.scatter_reduce(..., reduce="mean", include_self=False)`; ONNX ScatterElements has no "mean"
reduction (and no include_self=False mode), so the export fails ("ONNX does not support ... for
scatter_reduce") or maps "mean" to a plain overwrite, as the feature request describes.

Source: https://github.com/onnx/onnx/issues/5100
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"hidden_states": {0: "tokens"}, "word_ids": {0: "tokens"}}
BLIND = "operators-17"


class SubwordToWordPooler(nn.Module):
    def __init__(self, dim=16, max_words=8, num_labels=5):
        super().__init__()
        self.max_words = max_words
        self.proj = nn.Linear(dim, dim)
        self.classifier = nn.Linear(dim, num_labels)

    def forward(self, hidden_states, word_ids):
        hidden_states = torch.tanh(self.proj(hidden_states))
        index = word_ids.unsqueeze(-1).expand_as(hidden_states)
        words = hidden_states.new_zeros(self.max_words, hidden_states.shape[-1])
        words = words.scatter_reduce(0, index, hidden_states, reduce="mean", include_self=False)
        return self.classifier(words)


def make_model():
    return SubwordToWordPooler().eval()


def _ids(n):
    return torch.sort(torch.randint(0, 8, (n,))).values


def example_inputs():
    return (torch.randn(12, 16), _ids(12))


def other_inputs():
    return [(torch.randn(20, 16), _ids(20)), (torch.randn(5, 16), _ids(5))]


def probe_inputs():
    return other_inputs()
