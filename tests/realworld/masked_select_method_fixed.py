"""Control: the masked sum written as `torch.where(idx, bbs, 0).sum()` (what the reporter moved to).

Source: https://github.com/pytorch/pytorch/issues/26034
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
CONTROL = True
DYNAMIC = {"bbs": {0: "boxes"}, "conf": {0: "boxes"}}


class Filter(nn.Module):
    def forward(self, bbs, conf):
        idx = conf > 0.5
        return torch.where(idx, bbs, torch.zeros_like(bbs)).sum()


def make_model():
    return Filter()


def example_inputs():
    return (torch.randn(6, 4), torch.rand(6, 1).expand(6, 4).contiguous())


def other_inputs():
    return [(torch.randn(9, 4), torch.rand(9, 1).expand(9, 4).contiguous()),
            (torch.randn(6, 4), torch.rand(6, 1).expand(6, 4).contiguous())]


def probe_inputs():
    return other_inputs()
