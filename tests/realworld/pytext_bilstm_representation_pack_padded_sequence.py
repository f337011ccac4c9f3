"""PyText's BiLSTM representation (used by its document-classification and word-tagging models) runs the LSTM on
`pack_padded_sequence(embedded_tokens, seq_lengths, batch_first=True)` and unpacks with `pad_packed_sequence(...,
total_length=embedded_tokens.size(1))`; for ONNX export the PR has to branch on `torch.onnx.is_in_onnx_export()` and
run the LSTM without packing, because the packed path does not export.

Source: https://github.com/facebookresearch/pytext/pull/457
"""
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"embedded_tokens": {0: "batch", 1: "seq_len"}, "seq_lengths": {0: "batch"}}
BLIND = "domains-42"


class BiLSTM(nn.Module):
    def __init__(self, embed_dim=16, lstm_dim=24, num_layers=1, bidirectional=True, dropout=0.4,
                 padding_value=0.0):
        super().__init__()
        self.num_layers = num_layers
        self.bidirectional = bidirectional
        self.lstm_dim = lstm_dim
        self.padding_value = padding_value
        self.dropout = nn.Dropout(dropout)
        self.lstm = nn.LSTM(embed_dim, lstm_dim, num_layers=num_layers, bidirectional=bidirectional,
                            batch_first=True)

    def forward(self, embedded_tokens, seq_lengths, states=None):
        if self.dropout.p > 0.0:
            embedded_tokens = self.dropout(embedded_tokens)

        if states is not None:
            # convert (h0, c0) from (bsz x num_layers*num_directions x nhid) to
            # (num_layers*num_directions x bsz x nhid)
            states = (
                states[0].transpose(0, 1).contiguous(),
                states[1].transpose(0, 1).contiguous(),
            )
        else:
            # We need to send in a zero state that matches the batch size, because
            # torch.jit tracing currently traces this as constant and therefore
            # locks the traced model into a static batch size.
            state = torch.zeros(
                self.num_layers * (2 if self.bidirectional else 1),
                embedded_tokens.size(0),  # batch size
                self.lstm_dim,
            )
            states = (state, state)

        rnn_input = pack_padded_sequence(embedded_tokens, seq_lengths, batch_first=True)
        rep, new_state = self.lstm(rnn_input, states)
        rep, _ = pad_packed_sequence(
            rep,
            padding_value=self.padding_value,
            batch_first=True,
            total_length=embedded_tokens.size(1),
        )  # Make sure the output from LSTM is padded to input's sequence length.
        # convert states back to (bsz x num_layers*num_directions x nhid) to be
        # used in data parallel model
        new_state = (new_state[0].transpose(0, 1), new_state[1].transpose(0, 1))
        return rep, new_state[0], new_state[1]


def make_model():
    return BiLSTM().eval()


def example_inputs():
    return (torch.randn(3, 12, 16), torch.tensor([12, 9, 4]))


def other_inputs():
    return [(torch.randn(4, 20, 16), torch.tensor([20, 17, 8, 3])),
            (torch.randn(2, 7, 16), torch.tensor([7, 2]))]


def probe_inputs():
    return other_inputs()
