"""A small conv + LSTM net run in float64 (`.double()`), as scientific and forecasting users do: both
exporters write it, but onnxruntime's CPU provider has no double Conv kernel (NOT_IMPLEMENTED) and
its LSTM "does not support double yet"."""

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.rnn = nn.LSTM(4, 4, batch_first=True)
        self.head = nn.Linear(4, 2)

    def forward(self, x):
        columns = torch.relu(self.conv(x)).mean(2).transpose(1, 2)  # (batch, width, channels)
        out, _ = self.rnn(columns)
        return self.head(out[:, -1])


def make_model():
    torch.manual_seed(0)
    return Net().double()


def example_inputs():
    return (torch.randn(2, 3, 8, 8, dtype=torch.float64),)
