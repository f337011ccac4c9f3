"""Control: ESPnet's ONNX-convertible `make_pad_mask`: the bound is the padded tensor's own size (`xs.size(1)`).

Source: https://github.com/espnet/espnet/pull/5326
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "scalars"
CONTROL = True
DYNAMIC = {"xs": {0: "batch", 1: "time"}, "lengths": {0: "batch"}}


def make_pad_mask(lengths, xs):
    seq_range = torch.arange(0, xs.size(1), dtype=torch.int64, device=xs.device)
    return seq_range.unsqueeze(0) >= lengths.unsqueeze(-1)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(3, 3)

    def forward(self, xs, lengths):
        mask = make_pad_mask(lengths, xs)
        return self.proj(xs).masked_fill(mask.unsqueeze(-1), 0.0)


def make_model():
    return Encoder()


def example_inputs():
    return (torch.randn(2, 5, 3), torch.tensor([5, 3]))


def other_inputs():
    return [(torch.randn(3, 7, 3), torch.tensor([7, 2, 6])), (torch.randn(2, 5, 3), torch.tensor([5, 1]))]


def probe_inputs():
    return other_inputs()
