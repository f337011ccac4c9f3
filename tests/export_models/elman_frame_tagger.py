"""An Elman RNN (nn.RNN, ReLU, two bidirectional layers, the initial state passed in) over frames,
then a tag per frame through a reshape by the batch and time sizes. torch's composite of aten.rnn_relu
is a Python loop over the steps: torch.export unrolls it and fixes the length to the example's
(the dynamo export fails: "conflicts between user-specified ranges"); the legacy export keeps it."""
import torch
from torch import nn

DYNAMIC = {"frames": {0: "batch", 1: "time"}, "h0": {1: "batch"}}


class FrameTagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(6, 8, num_layers=2, nonlinearity="relu", bidirectional=True, batch_first=True)
        self.head = nn.Linear(16, 3)

    def forward(self, frames, h0):
        hidden, _ = self.rnn(frames, h0)
        batch, time = frames.shape[0], frames.shape[1]
        return self.head(hidden.reshape(batch * time, -1)).view(batch, time, 3)


def make_model():
    torch.manual_seed(0)
    return FrameTagger().eval()


def example_inputs():
    return (torch.randn(2, 5, 6), torch.randn(4, 2, 8))


def probe_inputs():
    return [(torch.randn(3, 9, 6), torch.randn(4, 3, 8)), (torch.randn(2, 3, 6), torch.randn(4, 2, 8))]
