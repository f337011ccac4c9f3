"""`scale.item()` baked in by the legacy exporter, in a model whose output dict also holds that
Python number: the legacy exporter takes no float output, so the export runs under flat_outputs
(only the output's tensors exported), and the first divergence is searched in that export."""

import torch
from torch import nn


class DictItemScale(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x, scale):
        s = scale.item()
        y = self.proj(x) * s
        return {"y": y + 1, "scale": s}


def make_model():
    torch.manual_seed(0)
    return DictItemScale()


def example_inputs():
    return (torch.randn(2, 4, generator=torch.Generator().manual_seed(0)), torch.tensor(2.0))


def probe_inputs():
    return [(torch.randn(3, 4, generator=torch.Generator().manual_seed(1)), torch.tensor(-0.5))]


DYNAMIC = {"x": {0: "batch"}}
