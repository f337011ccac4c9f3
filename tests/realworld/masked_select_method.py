"""Filtering boxes by confidence with the method form `bbs.masked_select(idx)`, `idx = conf > thresh`;
here the consumer only reduces the selected values.

Source: https://github.com/pytorch/pytorch/issues/26034
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"bbs": {0: "boxes"}, "conf": {0: "boxes"}}


class Filter(nn.Module):
    def forward(self, bbs, conf):
        idx = conf > 0.5
        filtered_bbs = bbs.masked_select(idx)
        return filtered_bbs.sum()


def make_model():
    return Filter()


def example_inputs():
    return (torch.randn(6, 4), torch.rand(6, 1).expand(6, 4).contiguous())


def other_inputs():
    return [(torch.randn(9, 4), torch.rand(9, 1).expand(9, 4).contiguous()),
            (torch.randn(6, 4), torch.rand(6, 1).expand(6, 4).contiguous())]


def probe_inputs():
    return other_inputs()
