"""ONX601: a fast path on a tensor's value (SB3's recurrent policy: `if th.all(episode_starts == 0.0):`
the whole sequence at once, else a loop over the steps resetting states): an early `return` of
several statements before the rest of the function, a nested tuple returned."""
import torch
from torch import nn


class FastPath(nn.Module):
    def __init__(self, steps=3, width=4):
        super().__init__()
        self.steps = steps
        self.cell = nn.Linear(width, width)

    def forward(self, x: torch.Tensor, starts: torch.Tensor, h: torch.Tensor):
        if torch.all(starts == 0.0):
            out = torch.tanh(self.cell(x) + h)
            out = out * 2
            return out, (h, out.sum(-1))
        outs = []
        state = h
        for _ in range(self.steps):
            state = torch.tanh(self.cell(x) + state * (1.0 - starts))
            outs += [state]
        out = torch.stack(outs).mean(0)
        return out, (state, out.sum(-1))


def make_model():
    torch.manual_seed(0)
    return FastPath().eval()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(3, 4), torch.zeros(3, 1), torch.randn(3, 4))


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(5, 4), torch.tensor([[1.0], [0.0], [0.0], [1.0], [0.0]]), torch.randn(5, 4)),
            (torch.randn(2, 4), torch.zeros(2, 1), torch.randn(2, 4))]


DYNAMIC = {0: {0: "batch"}, 1: {0: "batch"}, 2: {0: "batch"}}
