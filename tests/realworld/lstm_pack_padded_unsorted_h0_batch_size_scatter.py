"""A 2-layer LSTM over padded feature sequences: the lengths go through
`pack_padded_sequence(..., enforce_sorted=False)`, the initial states are built with
`torch.zeros(num_layers, x.size(0), hidden)` and the output is unpacked with `pad_packed_sequence`. The
report exports with `batch_size` as a dynamic axis, yet onnxruntime fails on a different batch size in a
ScatterElements node ("Indices vs updates dimensions differs at position=0 11 vs 8").

Source: https://github.com/microsoft/onnxruntime/issues/11830
"""
import torch
import torch.nn as nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch_size", 1: "time"}, "length": {0: "batch_size"}}
BLIND = "domains-24"


class ToyModel(nn.Module):

    def __init__(self):
        super().__init__()
        self.rnn_num_layers = 2
        self.rnn_hidden_size = 64
        self.rnn = nn.LSTM(input_size=10, hidden_size=self.rnn_hidden_size, num_layers=self.rnn_num_layers,
                           batch_first=True)

    def forward(self, x, length):
        length = length.reshape(-1).cpu()
        batch_size = x.size(0)
        # Pack padded sequence
        x = nn.utils.rnn.pack_padded_sequence(x, length, batch_first=True, enforce_sorted=False)
        h0 = torch.zeros(self.rnn_num_layers, batch_size, self.rnn_hidden_size)
        c0 = torch.zeros(self.rnn_num_layers, batch_size, self.rnn_hidden_size)
        x, _ = self.rnn(x, (h0, c0))
        x, _ = nn.utils.rnn.pad_packed_sequence(x, batch_first=True)
        return x


def _inputs(batch, time):
    x = torch.randn(batch, time, 10)
    length = torch.randint(1, time + 1, (batch,))
    length[batch // 2] = time  # the longest sequence fills the padded length
    return x, length


def make_model():
    return ToyModel().eval()


def example_inputs():
    return _inputs(8, 12)


def other_inputs():
    return [_inputs(11, 15), _inputs(3, 7)]


def probe_inputs():
    return other_inputs()
