"""A spectrogram GRU exported with one sample (DeepFilterNet's `export_full` example has batch 1):
`spec[:, 0, :, :F].reshape(b, t, -1)` feeds an nn.GRU, and with the example's batch of 1
torch.export specializes the batch (guard Eq(batch, 1)): the dynamo export fails in onnxruntime
for other batches. The repair exports with the batch grown to 2 by repeating the example; the
comparison with eager still runs on the batch-1 example and the probes."""

import torch
from torch import nn


class SpecGRU(nn.Module):
    def __init__(self, freqs=6, hidden=8):
        super().__init__()
        self.freqs = freqs
        self.gru = nn.GRU(freqs * 2, hidden, batch_first=True)
        self.out = nn.Linear(hidden, 4)

    def forward(self, spec):
        b, _, t, _, _ = spec.shape
        feat = spec[:, 0, :, : self.freqs].reshape(b, t, -1)
        c, _ = self.gru(feat)
        return self.out(c)


def make_model():
    torch.manual_seed(0)
    return SpecGRU()


def example_inputs():
    return (torch.randn(1, 1, 9, 10, 2),)
