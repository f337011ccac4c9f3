"""An LSTM with projections (`proj_size`, icefall's LSTM transducer encoder), two bidirectional
layers given their initial states: the dynamo export translates aten.lstm as an ONNX LSTM, which
has no projection (onnxruntime: "Input initial_c must have shape"); the legacy exporter refuses
it ("LSTMs with projections")."""
import torch
from torch import nn

DYNAMIC = {"frames": {0: "batch", 1: "time"}}


class ProjectedEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(6, 12, num_layers=2, proj_size=4, bidirectional=True, batch_first=True)

    def forward(self, frames):
        batch = frames.shape[0]
        h0 = frames.new_zeros(4, batch, 4)
        c0 = frames.new_ones(4, batch, 12)
        out, (h, c) = self.lstm(frames, (h0, c0))
        return out, h, c


def make_model():
    torch.manual_seed(0)
    return ProjectedEncoder().eval()


def example_inputs():
    return (torch.randn(2, 5, 6),)


def probe_inputs():
    return [(torch.randn(3, 9, 6),), (torch.randn(1, 3, 6),)]
