"""A hand-written recurrent cell for step-by-step (streaming) inference keeps its hidden state in a plain
member, `self.last_hidden`, concatenates it with each new input frame and overwrites it with the new hidden
state at the end of forward. The report says the member variable "is not working" after conversion: the
ONNX model treats the hidden state as a constant and never carries it from one call to the next.

Source: https://github.com/pytorch/pytorch/issues/98727
"""
import torch
import torch.nn as nn

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {}
BLIND = "domains-24"


class RNN(nn.Module):
    # you can also accept arguments in your model constructor
    def __init__(self, data_size, hidden_size, output_size):
        super(RNN, self).__init__()
        self.last_hidden = torch.zeros(1, hidden_size)

        input_size = data_size + hidden_size

        self.i2h = nn.Linear(input_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)

    def forward(self, data):
        input = torch.cat((data, self.last_hidden), 1)
        hidden = self.i2h(input)
        output = self.h2o(hidden)

        self.last_hidden = hidden
        return output


data_size = 50
hidden_size = 20
output_size = 10


def make_model():
    return RNN(data_size, hidden_size, output_size).eval()


def example_inputs():
    return (torch.randn(1, data_size),)


def other_inputs():
    return [(torch.randn(1, data_size),), (torch.randn(1, data_size),), (torch.randn(1, data_size),)]


def probe_inputs():
    return other_inputs()
