"""A model needs the fractional part of a tensor, like torch.frac(); the reporter says the op is not implemented
in the Core ML converter (and the int32 cast used instead converts wrongly).

Source: https://github.com/apple/coremltools/issues/1589
"""
import torch

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "rows"}}
BLIND = "operators-22"


class Frac(torch.nn.Module):
    def forward(self, x):
        x_frac = torch.frac(x)
        return x_frac


def make_model():
    return Frac().eval()


def example_inputs():
    return (10 * torch.rand((5, 5)) - 5,)


def other_inputs():
    return [(10 * torch.rand((7, 5)) - 5,), (10 * torch.rand((2, 5)) - 5,)]


def probe_inputs():
    return other_inputs()
