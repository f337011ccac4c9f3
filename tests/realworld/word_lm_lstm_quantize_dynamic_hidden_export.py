"""A word-level LSTM language model (embedding -> LSTM -> vocab decoder) made int8 with
`torch.quantization.quantize_dynamic` and exported with `torch.onnx.export(model, (dummy_input,
hidden), path)`: the report says the quantized model runs fine but the export crashes while tracing
(the dynamically quantized LSTM/Linear carry packed-parameter objects the exporter cannot handle).

Source: https://github.com/pytorch/pytorch/issues/64477
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"input": {0: "seq"}}
BLIND = "operators-18"


class RNNModel(nn.Module):
    def __init__(self, ntoken=200, ninp=32, nhid=32, nlayers=2, dropout=0.2):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        self.nhid = nhid
        self.nlayers = nlayers

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output)
        return decoded, hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                weight.new_zeros(self.nlayers, bsz, self.nhid))


def make_model():
    model = RNNModel().eval()
    return torch.quantization.quantize_dynamic(model, {nn.LSTM, nn.Linear}, dtype=torch.qint8)


def _hidden(bsz=2):
    return (torch.randn(2, bsz, 32), torch.randn(2, bsz, 32))


def example_inputs():
    return (torch.randint(0, 200, (35, 2)), _hidden())


def other_inputs():
    return [(torch.randint(0, 200, (12, 2)), _hidden()), (torch.randint(0, 200, (50, 2)), _hidden())]


def probe_inputs():
    return other_inputs()
