"""Channel shuffle layer building its index every call: `torch.index_select(x, dim=1, index=torch.LongTensor(self.index))`.

Source: https://github.com/pytorch/pytorch/issues/5101
"""
import torch
from torch import nn

CLASS = "constant-tensor"
FAMILY = "scalars"
DYNAMIC = {"x": {0: "batch", 2: "h", 3: "w"}}


class IndexLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.dim = 1
        self.index = [0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15]

    def forward(self, x):
        return torch.index_select(x, dim=self.dim, index=torch.LongTensor(self.index))


def make_model():
    return IndexLayer()


def example_inputs():
    return (torch.randn(1, 16, 6, 6),)


def other_inputs():
    return [(torch.randn(2, 16, 3, 5),), (torch.randn(1, 16, 8, 4),)]


def probe_inputs():
    return other_inputs()
