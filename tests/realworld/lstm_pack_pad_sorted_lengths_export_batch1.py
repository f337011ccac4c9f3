"""A batch-first LSTM wrapped in `pack_padded_sequence(input_seq, length, batch_first=True)` and
`pad_packed_sequence(..., batch_first=True)`, so each padded sequence is run only up to its length. The report
exports it by tracing with a batch of one (time 4, length 2) and then feeds a batch of two to onnxruntime: the
exported model does not accept / does not reproduce the other batch and lengths.

Source: https://github.com/pytorch/pytorch/issues/62240
"""
import torch
from torch.nn.utils.rnn import pad_packed_sequence, pack_padded_sequence
import torch.nn as nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"input_seq": {0: "batch", 1: "time"}, "length": {0: "batch"}}
BLIND = "domains-24"


class LstmModel(torch.nn.Module):
    def __init__(self):
        super(LstmModel, self).__init__()
        self.rnn = nn.LSTM(4, 3, batch_first=True)

    def forward(self, input_seq, length):
        packed_emb = pack_padded_sequence(input_seq, length, batch_first=True)
        rnn_outputs = self.rnn(packed_emb)
        hidden_states, _ = pad_packed_sequence(rnn_outputs[0], batch_first=True)
        return hidden_states


def make_model():
    return LstmModel().eval()


def example_inputs():
    # B * T * V = 1 * 4 * 4, only the first 2 steps are valid
    example_input = torch.tensor(
        [[[1.0, 2.0, 3.0, 0.0], [1.0, 2.0, 3.0, 0.0], [1.0, 2.0, 3.0, 0.0], [1.0, 2.0, 3.0, 0.0]]], dtype=torch.float)
    example_length = torch.tensor([2])
    return (example_input, example_length)


def other_inputs():
    # B * T * V = 2 * 2 * 4 (the report's batch of two), then a longer batch of three
    return [
        (torch.tensor([[[1.0, 2.0, 3.0, 0.0], [1.0, 2.0, 3.0, 0.0]],
                       [[1.0, 2.0, 3.0, 0.0], [1.0, 2.0, 3.0, 0.0]]], dtype=torch.float),
         torch.tensor([2, 2])),
        (torch.randn(3, 6, 4), torch.tensor([6, 4, 1])),
    ]


def probe_inputs():
    return other_inputs()
