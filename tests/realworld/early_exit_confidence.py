"""Early-exit network: `if conf.max() > thr: return early_logits` before the second stage
(torchdynamo.export with data-dependent control flow).

Source: https://github.com/pytorch/pytorch/issues/93579
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch"}}


class EarlyExit(nn.Module):
    def __init__(self):
        super().__init__()
        self.stage1 = nn.Linear(4, 3)
        self.stage2 = nn.Linear(3, 3)

    def forward(self, x):
        early_logits = self.stage1(x)
        conf = early_logits.softmax(-1)
        if conf.max() > 0.9:
            return early_logits
        return self.stage2(early_logits.relu())


def make_model():
    return EarlyExit()


def example_inputs():
    return (torch.randn(2, 4) * 0.1,)


def other_inputs():
    return [(torch.randn(3, 4) * 20,), (torch.randn(1, 4) * 0.1,)]


def probe_inputs():
    return other_inputs()
