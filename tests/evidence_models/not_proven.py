"""Evidence that does not prove a fix: each line stays as static analysis leaves it."""

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence


class NotProven(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x, scale, packed):
        a = scale.item() / self.fc(x)
        b = self.fc(x).half() * scale.item()
        c = packed.data.sum()
        return a + b.float() + c


def example_inputs():
    return (torch.randn(2, 4), torch.tensor(2.0), pack_padded_sequence(torch.randn(3, 2, 4), [3, 2]))
