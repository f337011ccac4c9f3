"""A bidirectional LSTM tagger over padded sentences of any lengths: pack_padded_sequence
(unsorted), the LSTM, pad_packed_sequence. torch.export cannot follow the packed data's size; the
legacy tracer records the example's lengths."""
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

DYNAMIC = {"x": {0: "batch", 1: "time"}, "lengths": {0: "batch"}}


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(5, 4, num_layers=2, bidirectional=True, batch_first=True)
        self.head = nn.Linear(8, 3)

    def forward(self, x, lengths):
        packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        out, _ = self.rnn(packed)
        out, _ = pad_packed_sequence(out, batch_first=True)  # as long as the longest sentence
        return self.head(out)


def make_model():
    torch.manual_seed(0)
    return Tagger().eval()


def example_inputs():
    return (torch.randn(3, 7, 5), torch.tensor([6, 2, 4]))


def probe_inputs():
    return [(torch.randn(2, 9, 5), torch.tensor([3, 8])), (torch.randn(4, 4, 5), torch.tensor([1, 4, 2, 3]))]
