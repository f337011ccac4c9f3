"""issue 12: `s = scale.item(); return self.fc(x) * s`: SILENTLY-WRONG under legacy; statically the
promotion of `s` is unknown, the recorded run shows scale a float32 0-d tensor and fc(x) float32."""

import torch
from torch import nn


class ScaledLinear(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x, scale):
        s = scale.item()
        return self.fc(x) * s


def example_inputs():
    return (torch.randn(2, 4), torch.tensor(1.5))


def probe_inputs():
    return [(torch.randn(5, 4), torch.tensor(-0.25))]


DYNAMIC = {"x": {0: "batch"}}
