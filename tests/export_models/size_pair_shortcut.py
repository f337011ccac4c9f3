"""A fast path taken for the pretraining grid alone, tested like DINOv2's position table
(`npatch == N and w == h`): the tokens scaled there, shifted otherwise. At a 6 x 5 example the test
is false, and no height alone or width alone makes it true: only the 4 x 4 grid does (a probe).
torch.export keeps the example's side for every size; the guard names the test's line."""
import torch
from torch import nn


class Positions(nn.Module):
    def __init__(self, dim=8, grid=4):
        super().__init__()
        self.patches = grid * grid
        self.scale = nn.Parameter(torch.rand(dim))
        self.shift = nn.Parameter(torch.rand(dim))

    def forward(self, x):
        b, c, h, w = x.shape
        tokens = x.flatten(2).transpose(1, 2)
        npatch, n = tokens.shape[1], self.patches
        if npatch == n and w == h:
            return tokens * self.scale
        return tokens + self.shift


def make_model():
    torch.manual_seed(0)
    return Positions().eval()


def example_inputs():
    return (torch.rand(1, 8, 6, 5),)


def probe_inputs():
    return [(torch.rand(2, 8, 7, 3),), (torch.rand(2, 8, 4, 4),)]
