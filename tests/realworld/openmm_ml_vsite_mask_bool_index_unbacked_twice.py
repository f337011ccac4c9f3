"""Molecular ML-potential graph (FX-extracted, virtual sites removed from the coordinate tensors): the same
constant boolean atom mask `self.mm_mask_with_vsites` (a plain tensor attribute) indexes two coordinate
tensors; each `x[:, mask]` creates its own data-dependent size u0, and the exported program then fails in
`run_decompositions` (an assertion: "possible memo disaster" when the recreated unbacked sizes are found equal).

Source: https://github.com/pytorch/pytorch/issues/154647
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "indexing"
DYNAMIC = {"slice_109": {0: "batch"}, "slice_114": {0: "batch"}}
BLIND = "domains-36"


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.mm_mask_with_vsites = torch.zeros([4497], dtype=torch.bool)
        self.mm_mask_with_vsites[0:21] = True

    def forward(self, slice_109, slice_114):
        index_46 = slice_109[:, self.mm_mask_with_vsites]  # Create u0
        index_47 = slice_114[:, self.mm_mask_with_vsites]  # Create another instance of u0 separately
        return index_46, index_47


def make_model():
    return Model()


def example_inputs():
    return (torch.rand([2, 4497, 2]), torch.rand([2, 4497, 2]))


def other_inputs():
    return [(torch.rand([3, 4497, 2]), torch.rand([3, 4497, 2])),
            (torch.rand([1, 4497, 2]), torch.rand([1, 4497, 2]))]


def probe_inputs():
    return other_inputs()
