"""torchlibrosa's power_to_db (blind case domains-47): the decibel floor is the peak minus
`top_db`, `torch.clamp(log_spec, min=log_spec.max().item() - self.top_db, max=np.inf)`. The dynamo
exporter keeps `.item()` symbolic; the legacy exporter bakes the example's peak into the floor,
silently wrong for every other input. The tensor cannot take the number's place beside the number
`max` (tracing refuses the mix): the clamp goes by one bound at a time."""
import numpy as np
import torch
from torch import nn

DYNAMIC = {"power": {0: "batch", 1: "frames"}}


class LogMel(nn.Module):
    def __init__(self, top_db=40.0):
        super().__init__()
        self.top_db = top_db

    def forward(self, power):
        log_spec = 10.0 * torch.log10(torch.clamp(power, min=1e-10, max=np.inf))
        return torch.clamp(log_spec, min=log_spec.max().item() - self.top_db, max=np.inf)


def make_model():
    return LogMel().eval()


def _power(batch, frames, peak):
    torch.manual_seed(batch * 100 + frames)
    return torch.rand(batch, frames, 16) ** 8 * peak


def example_inputs():
    return (_power(2, 20, 1.0),)


def probe_inputs():
    return [(_power(3, 31, 50.0),), (_power(1, 7, 0.01),)]
