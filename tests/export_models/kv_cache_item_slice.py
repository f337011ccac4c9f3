"""A decode step whose start positions are read out of tensors (ExecuTorch's Llama export,
pytorch/executorch#1933): `sp = start_pos.item()` slices the cache, and the attention's mask
broadcast over the keys asks torch.export whether `1 + sp` is 1, which it cannot decide. torch
suggests `torch._check(1 != (1 + sp))`; the run sees it hold, and ONX611 inserts it. A second
cache read at another position in the same statement meets its own guard only once the first is
decided: a second check before the same statement, found by the next export."""
import torch
import torch.nn.functional as F
from torch import nn


class DecodeStep(nn.Module):
    def __init__(self, dim=8, max_len=16):
        super().__init__()
        self.wq, self.wk = nn.Linear(dim, dim), nn.Linear(dim, dim)
        self.register_buffer("mask", torch.zeros(max_len, max_len))

    def forward(self, x, start_pos, memory_pos, cache_k, memory):
        bsz, seqlen, _ = x.shape
        sp = start_pos.item()
        mp = memory_pos.item()
        torch._check_is_size(sp, max=14)  # as ExecuTorch constrains it (torch._constrain_as_size)
        torch._check_is_size(mp, max=14)
        cache_k[:bsz, sp : sp + seqlen] = self.wk(x).view(bsz, seqlen, 2, 4)
        keys = cache_k[:bsz, 0 : sp + seqlen].transpose(1, 2)
        recalled = memory[:bsz, 0 : mp + seqlen].transpose(1, 2)
        query = self.wq(x).view(bsz, seqlen, 2, 4).transpose(1, 2)
        mask = torch.squeeze(self.mask[None, None, :seqlen, :seqlen], [0, 1])
        out = F.scaled_dot_product_attention(query, keys, keys, attn_mask=mask) + F.scaled_dot_product_attention(
            query, recalled, recalled, attn_mask=mask)
        return out, cache_k


def make_model():
    torch.manual_seed(0)
    return DecodeStep().eval()


def _step(start, recall):
    return torch.randn(2, 1, 8), torch.tensor(start), torch.tensor(recall), torch.randn(2, 16, 2, 4), torch.randn(2, 16, 2, 4)


def example_inputs():
    torch.manual_seed(0)
    return _step(5, 7)


def probe_inputs():
    torch.manual_seed(1)
    return [_step(9, 3), _step(2, 11)]
