"""A model fills column 0 of a zero (B, 2) tensor from the positive entries of its input with
`r[mask, 0] = R[mask]`; the exported ONNX model fails in onnxruntime (Reshape node) on other inputs.

Source: https://github.com/pytorch/pytorch/issues/159295
"""
import torch
import torch.nn as nn

CLASS = "indexing"
FAMILY = "indexing"
DYNAMIC = {"R": {0: "batch"}}
BLIND = "domains-7"


class TestModel(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, R):
        B = R.shape[0]
        r = torch.zeros((B, 2), dtype=R.dtype, device=R.device)
        mask = R > 0
        r[mask, 0] = R[mask]
        return r


def make_model():
    return TestModel()


def example_inputs():
    return (torch.ones((2,)),)


def other_inputs():
    return [(torch.tensor([0.0, 1.0, -2.0, 3.0, 0.5]),), (torch.tensor([-1.0, 2.0, 0.0]),)]


def probe_inputs():
    return other_inputs()
