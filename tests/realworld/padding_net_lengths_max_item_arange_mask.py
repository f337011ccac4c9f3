"""A user's sequence-padding network builds a float mask from a batch of sequence lengths: `max_seq_len =
lengths.max().item()`, `torch.arange(0, max_seq_len, 1) < lengths[:, None]`, returned as (batch, time, 1). The report
hits a data-dependent error when exporting it (torch.export / AOTInductor); a traced export keeps the example's
longest length as a constant.

Source: https://github.com/pytorch/pytorch/issues/113002
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "scalars"
DYNAMIC = {"lengths": {0: "batch"}}
BLIND = "domains-28"


class PaddingNet(nn.Module):
    def __init__(self):
        super(PaddingNet, self).__init__()

    def forward(self, lengths):
        max_seq_len = lengths.max().item()
        row_vector = torch.arange(0, max_seq_len, 1)
        matrix = torch.unsqueeze(lengths, dim=-1)
        mask = row_vector < matrix
        mask = mask.type(torch.float32)
        mask_3d_btd = mask[:, :, None]
        return mask_3d_btd


def make_model():
    return PaddingNet()


def example_inputs():
    return (torch.tensor([5, 4, 4, 4], dtype=torch.int32),)


def other_inputs():
    return [(torch.tensor([9, 2, 7], dtype=torch.int32),), (torch.tensor([3, 1, 2, 3, 2], dtype=torch.int32),)]


def probe_inputs():
    return other_inputs()
