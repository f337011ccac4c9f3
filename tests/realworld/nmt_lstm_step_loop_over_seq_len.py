"""An NMT "LSTMCell style" attention step: an `nn.LSTM` is run one time step at a time in a Python loop,
`for i in range(x.shape[0])`, feeding `x[[i]]` and carrying `(hx, cx)`, and the step outputs are stacked.
The report exports it with `seq_length` as a dynamic axis of the input and output and fails; the loop runs
as many times as the example sequence is long.

Source: https://github.com/pytorch/pytorch/issues/42404
"""
import torch
import torch.nn as nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "seq_length"}}
BLIND = "domains-24"


class test(nn.Module):
    def __init__(self):
        super().__init__()

        self.rnn = nn.LSTM(10, 20)

    def forward(self, x, hx, cx):

        outputs = []
        for i in range(x.shape[0]):
            output, next_step = self.rnn(x[[i]], (hx, cx))
            hx, cx = next_step
            outputs.append(output)
        return torch.stack(outputs).squeeze(1)


def make_model():
    return test().eval()


def example_inputs():
    return (torch.randn(6, 1, 10), torch.randn(1, 1, 20), torch.randn(1, 1, 20))


def other_inputs():
    return [
        (torch.randn(9, 1, 10), torch.randn(1, 1, 20), torch.randn(1, 1, 20)),
        (torch.randn(3, 1, 10), torch.randn(1, 1, 20), torch.randn(1, 1, 20)),
    ]


def probe_inputs():
    return other_inputs()
