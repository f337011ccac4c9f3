"""ONX601 on FastSpeech2Conformer's length regulator: `if durations.sum() == 0:` gives every all-zero
row a duration of one, `durations[durations.sum(dim=1).eq(0)] = 1` (here the row mask spread over each
row). torch.export cannot decide the
test (GuardOnDataDependentSymNode); the legacy exporter keeps the example's branch (no write for an
example with durations), wrong for an all-zero input. Fixed by folding the test into the mask
(`mask & test`), which writes the same elements and drops the branch."""
import torch
from torch import nn


class DurationFloor(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x, durations):
        durations = durations.clone()
        if durations.sum() == 0:
            # the row mask spread over the row (a (batch,) mask on a 2-D tensor is ONX705's legacy hazard)
            durations[durations.sum(dim=1, keepdim=True).eq(0).expand_as(durations)] = 1
        return self.proj(x) * durations.unsqueeze(-1).to(x.dtype)


def make_model():
    torch.manual_seed(0)  # the inputs are drawn after it
    return DurationFloor()


def example_inputs():
    return (torch.randn(2, 5, 4), torch.randint(1, 4, (2, 5)))


def probe_inputs():
    return [(torch.randn(3, 7, 4), torch.zeros(3, 7, dtype=torch.long)),
            (torch.randn(1, 4, 4), torch.randint(0, 3, (1, 4)))]


DYNAMIC = {0: {0: "batch", 1: "tokens"}, 1: {0: "batch", 1: "tokens"}}
