"""Float coordinates binned with `torch.div(a, b, rounding_mode="floor")` (values on a 0.1 grid): ATen
floors the numerator less its fmod remainder divided (0.7 // 0.1 is 6), both exporters floor the plain
quotient (7.000001 floored is 7): silently 1 too high wherever the quotient rounds onto a whole number."""
import torch
from torch import nn

DYNAMIC = {"a": {0: "n"}, "b": {0: "n"}}


class FloorBins(nn.Module):
    def forward(self, a, b):
        return torch.div(a, b, rounding_mode="floor")


def make_model():
    return FloorBins()


def _pair(n):
    g = torch.Generator().manual_seed(n)
    return (torch.randint(-400, 400, (n, 8), generator=g).float() * 0.1,
            torch.randint(1, 6, (n, 8), generator=g).float() * 0.1)


def example_inputs():
    return _pair(6)


def probe_inputs():
    return [_pair(9), _pair(3)]
