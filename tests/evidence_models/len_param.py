"""`len(x)` of forward's unannotated argument: statically not known to be a tensor, so not
reported; the legacy exporter bakes the length in. The recorded run saw a tensor."""

import torch
from torch import nn


class LenParam(nn.Module):
    def forward(self, x):
        return x[: len(x) - 1] * len(x)


def example_inputs():
    return (torch.randn(4, 3),)


def probe_inputs():
    return [(torch.randn(7, 3),)]


DYNAMIC = {"x": {0: "batch"}}
