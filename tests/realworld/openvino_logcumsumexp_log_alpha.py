"""A sequence model accumulates per-step log-probabilities in log space with torch.logcumsumexp(x, dim) over the
time axis; OpenVINO's PyTorch frontend has no conversion rule for aten::logcumsumexp (tracked as a request to
support the op).

Source: https://github.com/openvinotoolkit/openvino/issues/28530
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "time"}}
BLIND = "operators-22"


class LogCumulativeScore(nn.Module):
    def __init__(self, dim=32, num_classes=8):
        super().__init__()
        self.proj = nn.Linear(dim, num_classes)

    def forward(self, x):
        log_probs = torch.log_softmax(self.proj(x), dim=-1)
        log_alpha = torch.logcumsumexp(log_probs, dim=1)
        return log_alpha


def make_model():
    return LogCumulativeScore().eval()


def example_inputs():
    return (torch.randn(2, 10, 32),)


def other_inputs():
    return [(torch.randn(3, 17, 32),), (torch.randn(1, 5, 32),)]


def probe_inputs():
    return other_inputs()
