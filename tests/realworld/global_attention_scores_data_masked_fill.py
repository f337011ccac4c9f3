"""Luong-style global attention (OpenNMT-like) masks padded memory positions by writing through
`.data`: `align.data.masked_fill_(~mask, -float('inf'))`. The torch.export tutorial lists
"accessing tensor data with `.data`" (`x.data[0, 0] = 3`) among the graph breaks export cannot
handle; the write is invisible to the traced graph.

Source: https://pytorch.org/tutorials/intermediate/torch_export_tutorial.html#graph-breaks
"""
import torch
from torch import nn

CLASS = "views"
FAMILY = "tensor_data"
DYNAMIC = {"source": {0: "batch", 1: "tgt_len"}, "memory_bank": {0: "batch", 1: "src_len"},
           "memory_lengths": {0: "batch"}}
BLIND = "domains-44"


def sequence_mask(lengths, max_len):
    return torch.arange(0, max_len, device=lengths.device).unsqueeze(0) < lengths.unsqueeze(1)


class GlobalAttention(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.linear_in = nn.Linear(dim, dim, bias=False)
        self.linear_out = nn.Linear(dim * 2, dim, bias=False)

    def forward(self, source, memory_bank, memory_lengths):
        align = torch.bmm(self.linear_in(source), memory_bank.transpose(1, 2))  # (B, T, S)
        mask = sequence_mask(memory_lengths, max_len=align.size(-1))
        mask = mask.unsqueeze(1)  # make it broadcastable
        align.data.masked_fill_(~mask, -float('inf'))

        align_vectors = torch.softmax(align, dim=-1)
        c = torch.bmm(align_vectors, memory_bank)
        attn_h = torch.tanh(self.linear_out(torch.cat([c, source], 2)))
        return attn_h, align_vectors


def make_model():
    return GlobalAttention()


def example_inputs():
    return (torch.randn(2, 3, 32), torch.randn(2, 7, 32), torch.tensor([7, 4]))


def other_inputs():
    return [(torch.randn(3, 5, 32), torch.randn(3, 9, 32), torch.tensor([9, 2, 6])),
            (torch.randn(1, 2, 32), torch.randn(1, 4, 32), torch.tensor([3]))]


def probe_inputs():
    return other_inputs()
