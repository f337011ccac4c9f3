"""A user's variable-length RNN: an LSTM run over `pack_padded_sequence(x, lengths, batch_first=True,
enforce_sorted=False)` and unpacked again with `pad_packed_sequence`. The report says `torch.export.export`
(the capture step of the dynamo ONNX exporter) fails inside the LSTM when it builds its zero hidden state,
because a FakeTensor (the packed batch sizes, computed from the `lengths` values) is used where a concrete
integer is expected.

Source: https://github.com/pytorch/pytorch/issues/171978
"""
import torch
import torch.nn as nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch", 1: "time"}, "lengths": {0: "batch"}}
BLIND = "domains-30"


class RNNModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(10, 20, batch_first=True)

    def forward(self, x, lengths):
        packed = nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        output, _ = self.rnn(packed)
        output, _ = nn.utils.rnn.pad_packed_sequence(output, batch_first=True)
        return output


def make_model():
    return RNNModel().eval()


def example_inputs():
    data = torch.randn(3, 5, 10)
    lengths = torch.tensor([5, 3, 2])
    return (data, lengths)


def other_inputs():
    # the longest sequence always fills the padded time axis, like the report's example
    return [
        (torch.randn(4, 7, 10), torch.tensor([4, 7, 2, 5])),
        (torch.randn(2, 9, 10), torch.tensor([9, 6])),
    ]


def probe_inputs():
    return other_inputs()
