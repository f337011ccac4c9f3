"""Query update with a boolean row mask: `updated_query_content[selected] = other[selected]`,
`selected = mask.any(dim=1)`; the export crashed.

Source: https://github.com/pytorch/pytorch/issues/92540
"""
import torch
from torch import nn

CLASS = "indexing"
FAMILY = "indexing"
DYNAMIC = {"query_content": {0: "m"}, "mask": {0: "m"}}


class QueryToImage(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.out_proj = nn.Linear(dim, dim)

    def forward(self, query_content, mask):
        selected = mask.any(dim=1)
        updated = query_content.clone()
        updated[selected] = self.out_proj(query_content)[selected]
        return updated


def make_model():
    return QueryToImage()


def example_inputs():
    return (torch.randn(5, 4), torch.rand(5, 3) > 0.7)


def other_inputs():
    return [(torch.randn(8, 4), torch.rand(8, 3) > 0.7), (torch.randn(5, 4), torch.zeros(5, 3, dtype=torch.bool))]


def probe_inputs():
    return other_inputs()
