import math

import torch
from torch import nn


class Demixer(nn.Module):
    """HTDemucs's inverse spectrogram length: `int()` of the int `math.ceil` returns, of a length
    passed in, divided by a hop the file computes. torch.export pins the length at `int()`."""

    def __init__(self, hop=8):
        super().__init__()
        self.hop = hop

    def _ispec(self, z, length, scale=0):
        hl = self.hop // (4**scale)
        le = hl * int(math.ceil(length / hl))
        return nn.functional.pad(z, (0, le - z.shape[-1])) * 2

    def forward(self, mix):
        return self._ispec(mix, mix.shape[-1])


def make_model():
    torch.manual_seed(0)
    return Demixer()


def example_inputs():
    return (torch.randn(2, 3, 40),)


def probe_inputs():
    return [(torch.randn(1, 3, 29),), (torch.randn(3, 3, 53),)]


DYNAMIC = {0: {0: "batch", 2: "length"}}
