"""Parameters updated during inference at custom indices: `indices = torch.arange(update.shape[0])`,
then `self.params[index, middle, indices] = update`; exported fine, but onnxruntime fails with a
Reshape of the example's size once the update has another length.

Source: https://github.com/pytorch/pytorch/issues/135233
"""
import torch
from torch import nn

CLASS = "indexing"
FAMILY = "indexing"
DYNAMIC = {"update": {0: "n"}}
BLIND = "domains-10"


class UpdateModel(torch.nn.Module):

    def __init__(self):
        super().__init__()
        self.params = torch.zeros((2, 1, 10))

    def forward(self, update: torch.Tensor, index: torch.LongTensor):
        indices = torch.arange(update.shape[0])
        middle = torch.zeros((1,), dtype=torch.long)
        self.params[index, middle, indices] = update
        return self.params


def make_model():
    return UpdateModel()


def example_inputs():
    return (torch.randn(6), torch.tensor([1]))


def other_inputs():
    return [(torch.randn(4), torch.tensor([0])), (torch.randn(9), torch.tensor([1]))]


def probe_inputs():
    return other_inputs()
