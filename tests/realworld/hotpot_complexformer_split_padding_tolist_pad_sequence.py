"""hotpot ComplexFormer (molecule GNN + attention): node vectors of a PyG-style batch are split per graph with
`torch.split(x, nums.tolist())` and padded with `pad_sequence` before the attention block (the version the file keeps
as `__split_padding`). The repo then rewrote it as a "fully symbolic" `split_padding` "designed for `torch.export`"
that "avoids all graph-breaking operations like `.tolist()`", and finally as `split_padding_deploy` (hard-coded
`max_len = 32`) for its ONNX deploy path.

Source: https://github.com/Zhang-Zhiyuan-zzy/hotpot/blob/7007fe2843665dc2cf3078f43c13c05c9b630bd2/hotpot/plugins/ComplexFormer/infer/utils.py
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "total_nodes"}, "nums": {0: "batch"}}
BLIND = "domains-43"


def split_padding(x: torch.Tensor, nums: torch.Tensor):
    device = x.device
    split_x = list(torch.split(x, nums.tolist()))
    padded_X = torch.nn.utils.rnn.pad_sequence(split_x, batch_first=True)

    indices = torch.arange(padded_X.shape[1]).to(device)

    nums = nums.unsqueeze(1)
    padding_mask = indices < nums

    return padded_X, torch.logical_not(padding_mask)


class RingsAttentionEncoder(nn.Module):
    def __init__(self, dim=32, heads=4):
        super().__init__()
        self.node_proj = nn.Linear(dim, dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.out = nn.Linear(dim, 1)

    def forward(self, x, nums):
        x = self.node_proj(x).relu()
        padded_X, padding_mask = split_padding(x, nums)
        seq, _ = self.attn(padded_X, padded_X, padded_X, key_padding_mask=padding_mask)
        seq = seq.masked_fill(padding_mask.unsqueeze(-1), 0.0)
        pooled = seq.sum(1) / nums.unsqueeze(1).to(seq.dtype)
        return self.out(pooled)


def make_model():
    return RingsAttentionEncoder()


def example_inputs():
    nums = torch.tensor([5, 3, 7])
    return (torch.randn(int(nums.sum()), 32), nums)


def other_inputs():
    n1 = torch.tensor([2, 9, 4, 6])
    n2 = torch.tensor([11, 1])
    return [(torch.randn(int(n1.sum()), 32), n1), (torch.randn(int(n2.sum()), 32), n2)]


def probe_inputs():
    return other_inputs()
