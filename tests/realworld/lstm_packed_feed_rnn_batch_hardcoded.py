"""An LSTM fed with `nn.utils.rnn.pack_padded_sequence(X, sorted_lengths, batch_first=True)` and unpacked with
`pad_packed_sequence`; the report says tracing hard-codes the batch size of the example (16), so the traced graph
fails on a batch of 8 ("The size of tensor a (8) must match the size of tensor b (16)").

Source: https://github.com/pytorch/pytorch/issues/15319
"""
import torch
import torch.nn as nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"X": {0: "batch", 1: "time"}, "sorted_lengths": {0: "batch"}}
BLIND = "domains-22"


class FeedRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(30, 25, batch_first=True)

    def forward(self, X: torch.Tensor, sorted_lengths: torch.Tensor) -> torch.Tensor:
        X = nn.utils.rnn.pack_padded_sequence(X, sorted_lengths, batch_first=True)
        X, hidden_states = self.lstm(X)
        # pad_packed_sequence returns a tuple of sequences and lengths
        X, sorted_lengths = nn.utils.rnn.pad_packed_sequence(X, batch_first=True)
        return X


def make_model():
    return FeedRNN().eval()


def _batch(n, t):
    x = torch.randn((n, t, 30))
    lengths = torch.randint(low=1, high=t, size=(n,))
    lengths[0] = t  # the longest sequence fills the padded length
    lengths, _ = torch.sort(lengths, descending=True)
    return x, lengths


def example_inputs():
    return _batch(16, 5)


def other_inputs():
    return [_batch(8, 5), _batch(4, 9)]


def probe_inputs():
    return other_inputs()
