"""No rule: an in-place op directly on a slice of an input (docs/rules-flow.md, measured)."""
import torch
from torch import nn


class ScaleWidths(nn.Module):
    def forward(self, boxes: torch.Tensor):
        boxes[:, 2].mul_(2)
        return boxes


def make_model():
    return ScaleWidths()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(3, 4),)


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(3, 4) * 5,), (torch.randn(7, 4),)]


DYNAMIC = {0: {0: "boxes"}}
