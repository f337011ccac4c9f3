"""An LSTM over a sequence of any length: the graph keeps one LSTM node, while torch.onnx's
decomposition pass (which tries the op's fake decomposition, a loop over time steps) guards the
length to the example's. Nothing restricts the exported model's length."""

import torch
from torch import nn

DYNAMIC = {"x": {0: "batch", 1: "seq"}}


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(3, 8, batch_first=True)
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.head(out)


def make_model():
    torch.manual_seed(0)
    return Tagger()


def example_inputs():
    return (torch.randn(2, 12, 3),)
