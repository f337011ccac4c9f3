"""NeMo BiLSTM `sort_tensor`: `for i in range(ids_sorted.shape[0]): unsort_ids[ids_sorted[i]] = i`, a Python
loop over a dynamic size building the inverse permutation.

Source: https://github.com/pytorch/pytorch/issues/91528
"""
import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"context": {0: "batch"}, "lens": {0: "batch"}}


def sort_tensor(context, lens):
    lens_sorted, ids_sorted = torch.sort(lens, descending=True)
    unsort_ids = torch.zeros_like(ids_sorted)
    for i in range(ids_sorted.shape[0]):
        unsort_ids[ids_sorted[i]] = i
    context = context[ids_sorted]
    return context, lens_sorted, unsort_ids


class Sorter(nn.Module):
    def forward(self, context, lens):
        context, lens_sorted, unsort_ids = sort_tensor(context, lens)
        return context[unsort_ids] * 2, lens_sorted


def make_model():
    return Sorter()


def example_inputs():
    return (torch.randn(4, 3), torch.tensor([3, 7, 1, 5]))


def other_inputs():
    return [(torch.randn(6, 3), torch.tensor([2, 9, 4, 8, 1, 6])), (torch.randn(4, 3), torch.tensor([9, 1, 3, 2]))]


def probe_inputs():
    return other_inputs()
