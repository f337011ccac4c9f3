"""Language model with a KV cache: `past_keys = past_keys.unique_consecutive(dim=2)`; "'aten::unique_consecutive'
to ONNX opset version 14 is not supported".

Source: https://github.com/pytorch/pytorch/issues/112718
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"past_keys": {2: "past"}}


class Dedup(nn.Module):
    def forward(self, past_keys):
        past_keys = past_keys.unique_consecutive(dim=2)
        return past_keys.sum(2)


def make_model():
    return Dedup()


def example_inputs():
    k = torch.randint(0, 3, (1, 2, 6, 2)).float()
    return (k.repeat_interleave(2, dim=2),)


def other_inputs():
    return [(torch.randint(0, 3, (1, 2, 9, 2)).float(),), (torch.randint(0, 2, (1, 2, 5, 2)).float(),)]


def probe_inputs():
    return other_inputs()
