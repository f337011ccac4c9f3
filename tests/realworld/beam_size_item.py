"""LSTM decoder with beam search: `item = beam_size.item()` from a 1-element input tensor, then used as the
number of candidates; the legacy trace bakes the example's beam size in.

Source: https://github.com/pytorch/pytorch/issues/42966
"""
import torch
from torch import nn

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {"img_features": {0: "batch"}}


class BeamDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.score = nn.Linear(8, 10)

    def forward(self, img_features, beam_size):
        item = beam_size.item()
        scores = self.score(img_features.mean(1))
        top, idx = scores.topk(item, dim=-1)
        return top, idx


def make_model():
    return BeamDecoder()


def example_inputs():
    return (torch.randn(2, 49, 8), torch.tensor(3))


def other_inputs():
    return [(torch.randn(3, 49, 8), torch.tensor(6)), (torch.randn(1, 49, 8), torch.tensor(3))]


def probe_inputs():
    return other_inputs()
