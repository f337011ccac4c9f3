"""ONX703: an index write whose value broadcasts to the indexed shape."""
import torch
from torch import nn


class Fill(nn.Module):
    def forward(self, data: torch.Tensor, row: torch.Tensor):
        data = data.clone()
        data[torch.tensor([[0, 2], [1, 1]]), 1:3] = row
        return data


def make_model():
    return Fill()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(4, 4, 5), torch.randn(5))


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(4, 4, 5) * 3, torch.randn(5)), (torch.randn(4, 6, 5), torch.randn(5))]


DYNAMIC = {0: {1: "middle"}}
