"""No rule: `requires_grad_()` on an input in forward (docs/rules-flow.md, measured)."""
import torch
from torch import nn


class Saliency(nn.Module):
    def forward(self, x: torch.Tensor):
        x.requires_grad_()
        return torch.tanh(x) * 2


def make_model():
    return Saliency()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(2, 5),)


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(2, 5) * 3,), (torch.randn(4, 9),)]


DYNAMIC = {0: {0: "batch", 1: "features"}}
