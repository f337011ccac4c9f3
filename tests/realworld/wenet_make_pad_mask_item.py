"""WeNet's `make_pad_mask`: `max_len = max_len if max_len > 0 else lengths.max().item()`, then `arange(0, max_len)`.

Source: https://github.com/wenet-e2e/wenet/issues/2012
"""
import torch
from torch import nn

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {"xs": {0: "batch", 1: "time"}, "lengths": {0: "batch"}}


def make_pad_mask(lengths: torch.Tensor, max_len: int = 0) -> torch.Tensor:
    batch_size = lengths.size(0)
    max_len = max_len if max_len > 0 else lengths.max().item()
    seq_range = torch.arange(0, max_len, dtype=torch.int64, device=lengths.device)
    seq_range_expand = seq_range.unsqueeze(0).expand(batch_size, max_len)
    seq_length_expand = lengths.unsqueeze(-1)
    return seq_range_expand >= seq_length_expand


class Encoder(nn.Module):
    def forward(self, xs, lengths):
        mask = ~make_pad_mask(lengths)
        return (xs * mask.unsqueeze(-1)).sum(1)


def make_model():
    return Encoder()


def example_inputs():
    return (torch.randn(2, 5, 3), torch.tensor([5, 3]))


def other_inputs():
    return [(torch.randn(3, 7, 3), torch.tensor([7, 2, 6])), (torch.randn(2, 6, 3), torch.tensor([6, 1]))]


def probe_inputs():
    return other_inputs()
