"""`x.reshape(int(n), -1)` with n an int64 0-d tensor: dropping int() is unsafe statically (a
float tensor is no size, int() truncates); the recorded run saw an int64 0-d tensor."""

import torch
from torch import nn


class IntSize(nn.Module):
    def forward(self, x: torch.Tensor, n: torch.Tensor):
        return x.reshape(x.shape[0], int(n), -1).sum(-1)


def example_inputs():
    return (torch.randn(2, 12), torch.tensor(3))


def probe_inputs():
    return [(torch.randn(2, 12), torch.tensor(4))]
