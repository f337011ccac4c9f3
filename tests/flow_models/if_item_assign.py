"""ONX601: `.item()` condition, both branches assign; and a conditional expression."""
import torch
from torch import nn


class Clip(nn.Module):
    def forward(self, x: torch.Tensor):
        if x.sum().item() > 0:
            out = x * 2
        else:
            out = x - 1
        scale = out if out.mean() < 1 else out / 4
        return scale


def make_model():
    return Clip()


def example_inputs():
    torch.manual_seed(0)
    return (torch.tensor([[1.0, 2.0, -0.5], [0.5, 1.5, 2.0]]),)


def probe_inputs():
    torch.manual_seed(1)
    return [(-torch.tensor([[1.0, 2.0, -0.5], [0.5, 1.5, 2.0]]),), (torch.full((4, 3), 0.1),)]


DYNAMIC = {0: {0: "batch"}}
