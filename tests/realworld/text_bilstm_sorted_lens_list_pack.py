"""Bidirectional LSTM text encoder with variable-length inputs: sorts the batch by length, turns the lengths
into a Python list with `input_lens = list(input_lens[idx_sort])`, packs, runs the LSTM, unpacks to
`total_length=padded_seq_len` and unsorts; the reporter exports it with a dynamic batch size and "cannot get
the parity result" from the ONNX model.

Source: https://github.com/pytorch/pytorch/issues/41774
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "scalars"
DYNAMIC = {"inputs": {0: "batch", 1: "max_seq_len"}, "input_lens": {0: "batch"}}
BLIND = "domains-5"


class RNNEncoder(nn.Module):
    def __init__(self, input_dim=16, hidden_size=12, num_layers=1, bidirectional=True, dropout=0.0, cell="lstm"):
        super().__init__()
        self.input_dim = input_dim
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bidirectional = bidirectional
        self.dropout = dropout
        self.cell = cell
        self.rnn = nn.LSTM(self.input_dim, self.hidden_size, self.num_layers,
                           bidirectional=self.bidirectional, dropout=self.dropout, batch_first=True)

    def forward(self, inputs, input_lens):
        padded_seq_len = inputs.shape[1]

        # Sort by length (keep idx)
        _, idx_sort = torch.sort(input_lens, dim=0, descending=True)
        _, idx_unsort = torch.sort(idx_sort, dim=0)

        inputs = inputs.index_select(0, idx_sort)
        input_lens = list(input_lens[idx_sort])

        # Handling padding in Recurrent Networks
        inputs_packed = nn.utils.rnn.pack_padded_sequence(inputs, input_lens, batch_first=True)
        self.rnn.flatten_parameters()
        if str(self.cell).lower() == 'lstm':
            outputs, (hn, cn) = self.rnn(inputs_packed)
        elif str(self.cell).lower() == 'gru':
            outputs, hn = self.rnn(inputs_packed)

        outputs = nn.utils.rnn.pad_packed_sequence(outputs, batch_first=True, total_length=padded_seq_len)[0]

        # Un-sort by length
        outputs = outputs.index_select(0, idx_unsort)
        hn = hn.index_select(1, idx_unsort)
        return outputs, hn


def make_model():
    return RNNEncoder().eval()


def example_inputs():
    return (torch.randn(3, 10, 16), torch.tensor([7, 10, 4]))


def other_inputs():
    return [(torch.randn(5, 14, 16), torch.tensor([3, 14, 9, 12, 1])), (torch.randn(2, 6, 16), torch.tensor([6, 2]))]


def probe_inputs():
    return other_inputs()
