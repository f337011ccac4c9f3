"""ONX603: the inverse permutation written by a loop (NeMo's `sort_tensor`), over a flattened input."""
import torch
from torch import nn


def sort_tensor(context: torch.Tensor, lens: torch.Tensor):
    lens_sorted, ids_sorted = torch.sort(lens.view(-1), descending=True)
    unsort_ids = torch.zeros_like(ids_sorted)
    for i in range(ids_sorted.shape[0]):
        unsort_ids[ids_sorted[i]] = i
    return context[ids_sorted], lens_sorted, unsort_ids


class Sorter(nn.Module):
    def forward(self, context: torch.Tensor, lens: torch.Tensor):
        context, lens_sorted, unsort_ids = sort_tensor(context, lens)
        return context[unsort_ids] * 2, lens_sorted, unsort_ids


def make_model():
    return Sorter()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(4, 3), torch.tensor([3, 7, 1, 5]))


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(4, 3), torch.tensor([9, 1, 3, 2])), (torch.randn(6, 3), torch.tensor([2, 9, 4, 8, 1, 6]))]


DYNAMIC = {0: {0: "batch"}, 1: {0: "batch"}}
