"""ONX303: torchtune's causal mask from a padding mask, written through method views:
`mask.narrow(2, 0, seq_len).mul_(...)` and `mask.diagonal(dim1=1, dim2=2).copy_(True)`. The
legacy exporter makes the views copies (the writes are lost) and the dynamo exporter cannot copy
a Python bool."""
import torch
from torch import nn


class CausalMaskAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, hidden: torch.Tensor, padding_mask: torch.Tensor):
        bsz, seq_len = padding_mask.shape
        mask = torch.tril(torch.ones(seq_len, seq_len, device=padding_mask.device, dtype=torch.bool)).repeat(bsz, 1, 1)
        mask.narrow(2, 0, seq_len).mul_(padding_mask[:, None, :].expand(-1, seq_len, -1))
        mask.diagonal(dim1=1, dim2=2).copy_(True)
        scores = self.proj(hidden) @ hidden.transpose(1, 2)
        scores = scores.masked_fill(~mask, -1e4)
        weights = scores.diagonal(dim1=1, dim2=2).clone()
        scores.diagonal(dim1=1, dim2=2).fill_(0.5)  # a float tensor's diagonal set to a number
        return scores.softmax(-1) @ hidden, weights


def make_model():
    torch.manual_seed(0)
    return CausalMaskAttention().eval()


def _inputs(batch, seq, padded):
    hidden = torch.randn(batch, seq, 8)
    padding_mask = torch.ones(batch, seq, dtype=torch.bool)
    padding_mask[0, :padded] = False  # left padding of the first sequence
    return hidden, padding_mask


def example_inputs():
    torch.manual_seed(0)
    return _inputs(2, 5, 2)


def probe_inputs():
    torch.manual_seed(1)
    return [_inputs(3, 7, 3), _inputs(1, 4, 1)]


DYNAMIC = {0: {0: "batch", 1: "seq"}, 1: {0: "batch", 1: "seq"}}
