"""ONX529: PyTorch's time-sequence predictor (pytorch/pytorch#42785), one LSTMCell step per time
step over `input.chunk(input.size(1), dim=1)`."""
import torch
from torch import nn


class Sequence(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTMCell(1, 8)
        self.linear = nn.Linear(8, 1)

    def forward(self, input):
        h = torch.zeros(input.size(0), 8)
        c = torch.zeros(input.size(0), 8)
        outputs = []
        for input_t in input.chunk(input.size(1), dim=1):
            h, c = self.lstm(input_t, (h, c))
            outputs += [self.linear(h)]
        return torch.cat(outputs, dim=1)


def make_model():
    torch.manual_seed(0)
    return Sequence()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(3, 6),)


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(5, 6),), (torch.randn(1, 6) * 3,)]


DYNAMIC = {0: {0: "batch"}}
