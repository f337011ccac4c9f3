"""Acoustic encoder built on the projected LSTM that this PR adds to PyTorch (`nn.LSTM(..., proj_size=...)`,
LSTMP as used in ASR models): two stacked layers over filterbank frames, then a CTC-style classifier.
In the PR discussion the author asks whether ONNX export needs a change for LSTMs with projections, or
at least a clear error; the TorchScript exporter now raises "ONNX export of operator LSTM, LSTMs with
projections" and the dynamo exporter emits an ONNX LSTM whose hidden/cell state sizes do not match.

Source: https://github.com/pytorch/pytorch/pull/47725
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"feats": {0: "batch", 1: "frames"}}
BLIND = "operators-43"


class LSTMPEncoder(nn.Module):
    def __init__(self, n_mels=40, hidden_size=64, proj_size=24, num_layers=2, vocab=30):
        super().__init__()
        self.rnn = nn.LSTM(
            input_size=n_mels,
            hidden_size=hidden_size,
            num_layers=num_layers,
            proj_size=proj_size,
            batch_first=True,
        )
        self.classifier = nn.Linear(proj_size, vocab)

    def forward(self, feats):
        out, _ = self.rnn(feats)            # (B, T, proj_size)
        return self.classifier(out).log_softmax(dim=-1)


def make_model():
    return LSTMPEncoder().eval()


def example_inputs():
    return (torch.randn(2, 50, 40),)


def other_inputs():
    return [(torch.randn(3, 73, 40),), (torch.randn(1, 21, 40),)]


def probe_inputs():
    return other_inputs()
