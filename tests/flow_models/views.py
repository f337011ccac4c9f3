"""ONX303: in-place writes through views."""
import torch
import torch.nn.functional as F
from torch import nn


class Views(nn.Module):
    def forward(self, x: torch.Tensor):
        y = x.clone()
        v = y[:, 1:]
        v.add_(1)
        F.relu(y[:, :2], inplace=True)
        y.t()[0].mul_(2)
        y.transpose(0, 1)[1].mul_(3)
        y.view(-1).mul_(0.5)
        flat = y.view(-1)
        flat.add_(0.25)
        return y


def make_model():
    return Views()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(3, 4),)


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(3, 4) * 3,), (torch.randn(6, 4),)]


DYNAMIC = {0: {0: "rows"}}
