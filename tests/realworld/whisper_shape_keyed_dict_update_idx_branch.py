"""Simplified from running the HuggingFace Whisper model: the last dim of `x` is used as a key into a
Python dict (`update_idx = global_dict.get(x_len, None)`) and `y[update_idx] += 1` only runs when the
length is found; with dynamic shapes the branch on the looked-up size is fixed at capture time (the
report shows the compiled graph silently replaced by eager on the other path).

Source: https://github.com/pytorch/pytorch/issues/98533
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 1: "length"}}
BLIND = "domains-12"

global_dict = {
  3: 3
}


class F(nn.Module):
    def forward(self, x, y):

        # begin graph 0
        x_len = x.shape[-1]
        update_idx = global_dict.get(x_len, None)
        # end graph 0

        if update_idx is not None:
            # begin graph 1
            y[update_idx] += 1
            # end graph 1
        return y


def make_model():
    return F()


def example_inputs():
    return (torch.randn(2, 3), torch.zeros(5))


def other_inputs():
    return [(torch.randn(3, 6), torch.zeros(5)), (torch.randn(1, 4), torch.zeros(5))]


def probe_inputs():
    return other_inputs()
