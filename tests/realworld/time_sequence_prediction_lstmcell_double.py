"""PyTorch's sine-wave time-sequence predictor (two `nn.LSTMCell`s stepped over
`input.chunk(input.size(1), dim=1)`, the whole model in float64 via `.double()`); the report's
`torch.onnx.export` fails with "Exporting the operator chunk to ONNX opset version 9, 10, 11 & 12
is not supported".

Source: https://github.com/pytorch/pytorch/issues/42785
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"input": {0: "batch"}}
BLIND = "operators-6"


class Sequence(nn.Module):
    def __init__(self):
        super(Sequence, self).__init__()
        self.lstm1 = nn.LSTMCell(1, 51)
        self.lstm2 = nn.LSTMCell(51, 51)
        self.linear = nn.Linear(51, 1)

    def forward(self, input, future=0):
        outputs = []
        h_t = torch.zeros(input.size(0), 51, dtype=torch.double)
        c_t = torch.zeros(input.size(0), 51, dtype=torch.double)
        h_t2 = torch.zeros(input.size(0), 51, dtype=torch.double)
        c_t2 = torch.zeros(input.size(0), 51, dtype=torch.double)

        for i, input_t in enumerate(input.chunk(input.size(1), dim=1)):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for i in range(future):  # if we should predict the future
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        outputs = torch.cat(outputs, dim=1)
        return outputs


def make_model():
    return Sequence().double().eval()


T = 20


def _wave(n, length=24):
    x = torch.arange(length).double() + torch.randint(-4 * T, 4 * T, (n, 1)).double()
    return torch.sin(x / 1.0 / T)


def example_inputs():
    return (_wave(3),)


def other_inputs():
    return [(_wave(5),), (_wave(1),)]


def probe_inputs():
    return other_inputs()
