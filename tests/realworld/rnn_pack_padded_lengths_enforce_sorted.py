"""RNN over variable-length sequences: forward(x, lengths) packs with `pack_padded_sequence(x, lengths,
batch_first=True, enforce_sorted=False)`, runs nn.RNN and unpacks with `pad_packed_sequence`; the packed
sizes come from the values of `lengths`, and the question asks how to get this through torch.onnx.export.

Source: https://taourl.com/read-2497580.html
"""
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch_size", 1: "seq_len"}, "lengths": {0: "batch_size"}}
BLIND = "domains-20"


class RNNModel(nn.Module):
    def __init__(self, input_size, hidden_size):
        super(RNNModel, self).__init__()
        self.rnn = nn.RNN(input_size, hidden_size, batch_first=True)

    def forward(self, x, lengths):
        packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        output, _ = self.rnn(packed)
        output, _ = pad_packed_sequence(output, batch_first=True)
        return output


def make_model():
    return RNNModel(input_size=10, hidden_size=20)


def example_inputs():
    return (torch.randn(3, 5, 10), torch.tensor([5, 3, 2]))


def other_inputs():
    return [
        (torch.randn(4, 7, 10), torch.tensor([7, 2, 7, 4])),
        (torch.randn(2, 6, 10), torch.tensor([3, 6])),
    ]


def probe_inputs():
    return other_inputs()
