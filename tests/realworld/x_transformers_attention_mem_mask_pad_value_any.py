"""x-transformers Attention with recurrent memory tokens (`mem`) and a padding mask: before the fix the mask is
extended over the memory positions with `attend = torch.any(mem)` passed as the Python pad *value* of `F.pad`
(`pad_at_dim(input_mask, (mem.shape[-2], 0), dim = -1, value = attend)`), a tensor turned into a scalar; the commit
"now ONNX exportable" replaced it with a per-batch `torch.any(..., dim=1)` concatenated in front of the mask.

Source: https://github.com/lucidrains/x-transformers/commit/4e1a52034ef0b54c281b47a637706e8068df0c1b
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "item-assigned"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch", 1: "seq"}, "mask": {0: "batch", 1: "seq"}, "mem": {0: "batch", 1: "mem_len"}}
BLIND = "domains-60"


def exists(val):
    return val is not None


def max_neg_value(tensor):
    return -torch.finfo(tensor.dtype).max


def pad_at_dim(t, pad, dim = -1, value = 0.):
    dims_from_right = (- dim - 1) if dim < 0 else (t.ndim - dim - 1)
    zeros = ((0, 0) * dims_from_right)
    return F.pad(t, (*zeros, *pad), value = value)


class Attention(nn.Module):
    def __init__(self, dim, dim_head = 16, heads = 4):
        super().__init__()
        self.scale = dim_head ** -0.5
        self.heads = heads
        self.to_q = nn.Linear(dim, dim_head * heads, bias = False)
        self.to_k = nn.Linear(dim, dim_head * heads, bias = False)
        self.to_v = nn.Linear(dim, dim_head * heads, bias = False)
        self.to_out = nn.Linear(dim_head * heads, dim, bias = False)

    def forward(self, x, mask = None, mem = None):
        b, n, h = x.shape[0], x.shape[1], self.heads
        k_input = x
        v_input = x

        if exists(mem):
            # einops pack([mem, k_input], 'b * d')
            k_input = torch.cat((mem, k_input), dim = 1)
            v_input = torch.cat((mem, v_input), dim = 1)

        q, k, v = self.to_q(x), self.to_k(k_input), self.to_v(v_input)
        # rearrange 'b n (h d) -> b h n d'
        q, k, v = map(lambda t: t.reshape(t.shape[0], t.shape[1], h, -1).transpose(1, 2), (q, k, v))

        input_mask = mask

        if exists(input_mask) and exists(mem):
            # TODO: treat each batch individually.
            attend = torch.any(mem)
            input_mask = pad_at_dim(input_mask, (mem.shape[-2], 0), dim = -1, value = attend)

        dots = torch.einsum('b h i d, b h j d -> b h i j', q, k) * self.scale
        mask_value = max_neg_value(dots)

        if exists(input_mask):
            input_mask = input_mask[:, None, None, :]  # 'b j -> b 1 1 j'
            dots = dots.masked_fill(~input_mask, mask_value)

        attn = dots.softmax(dim = -1)
        out = torch.einsum('b h i j, b h j d -> b h i d', attn, v)
        out = out.transpose(1, 2).reshape(b, n, -1)  # 'b h n d -> b n (h d)'
        return self.to_out(out)


class Model(nn.Module):
    def __init__(self, dim = 32):
        super().__init__()
        self.attn = Attention(dim)

    def forward(self, x, mask, mem):
        return self.attn(x, mask = mask, mem = mem)


def make_model():
    return Model().eval()


def _inputs(b, n, m):
    mask = torch.ones(b, n, dtype = torch.bool)
    mask[:, n - 2:] = False
    return (torch.randn(b, n, 32), mask, torch.randn(b, m, 32))


def example_inputs():
    return _inputs(2, 10, 4)


def other_inputs():
    return [_inputs(3, 7, 6), _inputs(1, 12, 2)]


def probe_inputs():
    return other_inputs()
