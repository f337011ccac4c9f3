"""ONX612: a decoder steps at most 6 times and leaves the loop once every row has finished
(`if (h.mean(-1) > 1).all(): break`), collecting each step's state and score, joined after the
loop by `torch.stack` and `torch.cat` (greedy decoding's shape: seq2seq, PARSeq, Tacotron). The
dynamo exporter fails on the test; the legacy exporter keeps the example's number of steps.
Fixed: every step runs while exporting, the joins cut after the first step whose test held."""
import torch
from torch import nn


class Decoder(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.step = nn.Linear(dim, dim)

    def forward(self, x):
        h = x
        states, scores = [], []
        for step in range(6):
            h = h + 0.2 * torch.sigmoid(self.step(h))
            states.append(h)
            scores.append(h.mean(-1))
            if (h.mean(-1) > 1).all():
                break
        return torch.stack(states, dim=1), torch.cat(scores)


def make_model():
    torch.manual_seed(0)
    return Decoder().eval()


def example_inputs():
    return (torch.tensor([[0.7] * 4, [0.8] * 4]),)  # 4 steps


def probe_inputs():
    # 2 steps, never (6), 5 steps, 1 step
    return [(torch.full((3, 4), 0.9),), (torch.full((2, 4), -1.0),), (torch.tensor([[1.0] * 4, [0.6] * 4]),),
            (torch.full((1, 4), 1.0),)]


DYNAMIC = {0: {0: "batch"}}
