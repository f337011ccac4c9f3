"""examples/word_language_model RNNModel with `nn.RNN` (Elman, tanh) instead of LSTM: "Exporting RNN in ONNX"
fails for models where "LSTM / RNN is in the graph" (then `hack_onnx_rnn NYI`); on torch 2.13 the plain
`nn.RNN` still has no sequence-length-generic export under dynamo (its rnn_tanh loop is unrolled over the
example length).

Source: https://github.com/pytorch/pytorch/issues/5234
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"input": {0: "seq_len", 1: "batch"}, "hidden": {1: "batch"}}
BLIND = "operators-33"


class RNNModel(nn.Module):
    """Container module with an encoder, a recurrent module, and a decoder."""

    def __init__(self, ntoken, ninp, nhid, nlayers, dropout=0.5):
        super(RNNModel, self).__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        # self.rnn = nn.LSTM(ninp, nhid, num_layers=nlayers, dropout=dropout)
        self.rnn = nn.RNN(ninp, nhid, num_layers=nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)

        self.init_weights()
        self.nlayers = nlayers
        self.nhid = nhid

    def init_weights(self):
        initrange = 0.1
        self.encoder.weight.data.uniform_(-initrange, initrange)
        self.decoder.bias.data.fill_(0)
        self.decoder.weight.data.uniform_(-initrange, initrange)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output.view(output.size(0) * output.size(1), output.size(2)))
        return decoded.view(output.size(0), output.size(1), decoded.size(1)), hidden


def make_model():
    return RNNModel(ntoken=100, ninp=32, nhid=32, nlayers=2).eval()


def example_inputs():
    return (torch.randint(0, 100, (12, 4)), torch.zeros(2, 4, 32))


def other_inputs():
    return [
        (torch.randint(0, 100, (20, 3)), torch.randn(2, 3, 32)),
        (torch.randint(0, 100, (7, 1)), torch.randn(2, 1, 32)),
    ]


def probe_inputs():
    return other_inputs()
