"""Control: WeNet's refactored `make_pad_mask` with the bound given by the features' own time size.

Source: https://github.com/wenet-e2e/wenet/pull/2515
"""
import torch
from torch import nn

CLASS = "item-assigned"
FAMILY = "scalars"
CONTROL = True
DYNAMIC = {"xs": {0: "batch", 1: "time"}, "lengths": {0: "batch"}}


def make_pad_mask(lengths: torch.Tensor, max_len: int) -> torch.Tensor:
    seq_range = torch.arange(0, max_len, dtype=torch.int64, device=lengths.device)
    return seq_range.unsqueeze(0) >= lengths.unsqueeze(-1)


class Encoder(nn.Module):
    def forward(self, xs, lengths):
        mask = ~make_pad_mask(lengths, xs.size(1))
        return (xs * mask.unsqueeze(-1)).sum(1)


def make_model():
    return Encoder()


def example_inputs():
    return (torch.randn(2, 5, 3), torch.tensor([5, 3]))


def other_inputs():
    return [(torch.randn(3, 7, 3), torch.tensor([7, 2, 6])), (torch.randn(2, 6, 3), torch.tensor([6, 1]))]


def probe_inputs():
    return other_inputs()
