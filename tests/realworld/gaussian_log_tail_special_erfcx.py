"""Gaussian-tail scoring head that computes log P(Z > z) stably with the scaled complementary error
function torch.special.erfcx (log_tail = log(erfcx(z/sqrt2)/2) - z^2/2). The onnxscript issue (cited by
torch_lib's own test table: "The implementation is numerically unstable") is that aten::special_erfcx is
exported as exp(x^2) * (1 - erf(x)), which underflows to 0 and then overflows to inf*0 = NaN for
moderately large x, so the exported model returns 0/-inf/NaN where eager is finite.

Source: https://github.com/microsoft/onnxscript/issues/1223
"""
import math

import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-19"


class GaussianTailScore(nn.Module):
    def __init__(self, in_features=16):
        super().__init__()
        self.mean = nn.Linear(in_features, 1)
        self.log_std = nn.Linear(in_features, 1)
        self.threshold = nn.Parameter(torch.tensor(6.0))

    def forward(self, x):
        mu = self.mean(x)
        sigma = self.log_std(x).exp()
        z = (self.threshold - mu) / sigma
        # log P(Y > threshold) = log(0.5 * erfc(z / sqrt(2))), computed without underflow
        log_tail = torch.log(torch.special.erfcx(z / math.sqrt(2)) / 2) - z ** 2 / 2
        return log_tail


def make_model():
    return GaussianTailScore()


def example_inputs():
    return (torch.randn(8, 16),)


def other_inputs():
    return [(torch.randn(13, 16),), (torch.randn(3, 16),)]


def probe_inputs():
    return other_inputs()
