"""ONX702: tensor indices separated by a slice in an index write."""
import torch
from torch import nn


class Scatter(nn.Module):
    def forward(self, data: torch.Tensor, new_data: torch.Tensor):
        data = data.clone()
        data[torch.tensor([2, 3]), :, torch.tensor([1, 2])] = new_data
        return data


def make_model():
    return Scatter()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(4, 3, 5), torch.randn(2, 3))


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(4, 3, 5) * 3, torch.randn(2, 3)), (torch.randn(4, 6, 5), torch.randn(2, 6))]


DYNAMIC = {0: {1: "middle"}, 1: {1: "middle"}}
