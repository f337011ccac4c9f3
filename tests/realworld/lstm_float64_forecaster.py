"""An LSTM sequence forecaster kept in double precision (`.double()` weights, float64 inputs) and
exported to ONNX; export succeeds, but onnxruntime's CPU LSTM kernel fails at `sess.run()` with
"LSTM operator does not support double yet" although the ONNX schema allows tensor(double).

Source: https://github.com/microsoft/onnxruntime/issues/28339
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "time"}}
BLIND = "operators-3"


class LSTMForecaster(nn.Module):
    def __init__(self, n_features=3, hidden=16, horizon=4):
        super().__init__()
        self.lstm = nn.LSTM(n_features, hidden, num_layers=1, batch_first=True)
        self.head = nn.Linear(hidden, horizon)

    def forward(self, x):
        out, (h_n, c_n) = self.lstm(x)
        return self.head(out[:, -1, :])


def make_model():
    return LSTMForecaster().double().eval()


def example_inputs():
    return (torch.randn(2, 24, 3, dtype=torch.float64),)


def other_inputs():
    return [(torch.randn(3, 36, 3, dtype=torch.float64),), (torch.randn(1, 12, 3, dtype=torch.float64),)]


def probe_inputs():
    return other_inputs()
