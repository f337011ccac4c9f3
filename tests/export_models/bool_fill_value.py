"""Frame weights zeroed past each length with a bool fill value (`weights.masked_fill(pad, False)`):
the legacy tracer records `aten::masked_fill(Tensor, Tensor, bool)`, which TorchScript has no schema
for ("We don't have an op for aten::masked_fill"). bool_scalars_as_ints fills with the int the bool
equals while exporting: the same float tensor."""
import torch
from torch import nn


class LengthWeights(nn.Module):
    def __init__(self):
        super().__init__()
        self.score = nn.Linear(4, 1)

    def forward(self, x, lengths):
        pad = torch.arange(x.shape[1]).unsqueeze(0) >= lengths.unsqueeze(1)
        weights = self.score(x).squeeze(-1).sigmoid().masked_fill(pad, False)
        return (weights.unsqueeze(-1) * x).sum(1)


def make_model():
    torch.manual_seed(0)
    return LengthWeights()


def _inputs(batch, steps, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(batch, steps, 4, generator=g), torch.randint(1, steps + 1, (batch,), generator=g)


def example_inputs():
    return _inputs(2, 6, 0)


def probe_inputs():
    return [_inputs(3, 9, 1), _inputs(1, 4, 2)]
