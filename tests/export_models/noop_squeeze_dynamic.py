"""A speech front end's pre-emphasis on a (batch, time) signal that squeezes axis 1 first (a no-op
in eager: that axis is the time, never 1). torch.onnx traces sizes size-obliviously, keeps the
time axis, and still writes a Squeeze of it: onnxruntime fails at run time ("Dimension of input 1
must be 1 instead of 8000"). `onnxfix export --fix` exports with squeeze_dim, which squeezes only
the axes torch's own squeeze would (the dynamic time axis kept); the source is not edited."""
import torch
from torch import nn


class Preemphasis(nn.Module):
    def forward(self, signal):
        signal = signal.squeeze(1)
        return torch.cat([signal[..., :1], signal[..., 1:] - 0.97 * signal[..., :-1]], dim=-1)


def make_model():
    return Preemphasis().eval()


def example_inputs():
    torch.manual_seed(0)
    return (torch.rand(4, 800),)


def probe_inputs():
    return [(torch.rand(3, 500),), (torch.rand(1, 1200),)]


DYNAMIC = {0: {0: "batch", 1: "time"}}
