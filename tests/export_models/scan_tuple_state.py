"""ONX603's scan from the run's evidence: a step appended with `outs += [...]` (norse's Lift) and an
LSTMCell stepped with its (h, c) tuple as the carried state."""
import torch
from torch import nn


class TupleStateRecurrence(nn.Module):
    def __init__(self):
        super().__init__()
        self.lift = nn.Linear(4, 4)
        self.cell = nn.LSTMCell(4, 8)

    def forward(self, x):  # x: (time, batch, features)
        lifted = []
        for t in range(x.shape[0]):
            lifted += [self.lift(x[t])]
        y = torch.stack(lifted)
        state = (x.new_zeros(x.shape[1], 8), x.new_zeros(x.shape[1], 8))
        outputs = []
        for t in range(y.shape[0]):
            state = self.cell(y[t], state)
            outputs.append(state[0])
        return torch.stack(outputs)


def make_model():
    torch.manual_seed(0)
    return TupleStateRecurrence().eval()


def example_inputs():
    return (torch.randn(5, 2, 4),)


def probe_inputs():
    return [(torch.randn(9, 3, 4),)]


DYNAMIC = {0: {0: "time", 1: "batch"}}
