"""ONNX exporter's onnxruntime test for the Elman RNN (`torch.nn.RNN(..., nonlinearity="relu", bidirectional=True)`,
three layers, initial state passed in): the dynamo/FX exporter tracker lists
`test_rnn_name_elman_nonlinearity_relu_trilayer_bidirectional_with_initial_state_without_sequence_lengths_*`
among the failing tests. On torch 2.13 nn.RNN (unlike LSTM/GRU) still has no sequence-length-generic export under dynamo.

Source: https://github.com/pytorch/pytorch/issues/96538
"""
import torch

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"input": {0: "seq_len", 1: "batch"}, "hx": {1: "batch"}}
BLIND = "operators-33"

RNN_SEQUENCE_LENGTH = 11
RNN_BATCH_SIZE = 5
RNN_INPUT_SIZE = 5
RNN_HIDDEN_SIZE = 16


class ElmanWithStateModel(torch.nn.Module):
    def __init__(self, layers, nonlinearity, bidirect, dropout, batch_first):
        super().__init__()

        self.batch_first = batch_first
        self.inner_model = torch.nn.RNN(
            RNN_INPUT_SIZE,
            RNN_HIDDEN_SIZE,
            layers,
            nonlinearity=nonlinearity,
            bidirectional=bidirect,
            dropout=dropout,
            batch_first=batch_first,
        )

    def forward(self, input, hx=None):
        return self.inner_model(input, hx)


def make_model():
    return ElmanWithStateModel(layers=3, nonlinearity="relu", bidirect=True, dropout=0.0, batch_first=False).eval()


def _make_input(seq_len, batch_size):
    directions = 2
    layers = 3
    inputs = torch.randn(seq_len, batch_size, RNN_INPUT_SIZE)
    h0 = torch.randn(directions * layers, batch_size, RNN_HIDDEN_SIZE)
    return (inputs, h0)


def example_inputs():
    return _make_input(RNN_SEQUENCE_LENGTH, RNN_BATCH_SIZE)


def other_inputs():
    return [_make_input(7, 3), _make_input(16, 2)]


def probe_inputs():
    return other_inputs()
