"""A GRU over audio frames, then a classifier applied to every frame through a reshape by the
batch and time sizes. torch.onnx's decompositions of the GRU fix the sequence length to the
example's, so the reshape's time is a constant in the dynamo export (onnxruntime fails on other
lengths); the legacy export keeps it."""
import torch
from torch import nn

DYNAMIC = {"frames": {0: "batch", 1: "time"}}


class FrameClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(6, 8, batch_first=True)
        self.head = nn.Linear(8, 3)

    def forward(self, frames):
        hidden, _ = self.rnn(frames)
        batch, time = frames.shape[0], frames.shape[1]
        return self.head(hidden.reshape(batch * time, -1)).view(batch, time, 3)


def make_model():
    torch.manual_seed(0)
    return FrameClassifier().eval()


def example_inputs():
    return (torch.randn(2, 5, 6),)


def probe_inputs():
    return [(torch.randn(3, 9, 6),), (torch.randn(2, 3, 6),)]
