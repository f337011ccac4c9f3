"""x-transformers Attention with recurrent memory (`mem`): when an input mask is given, the memory positions are
unmasked per sample with `attend = torch.any(mem.flatten(1), dim=1)` on the float memory tensor, repeated over the
memory length and concatenated in front of the mask. The follow-up commit to "now ONNX exportable" is titled
"fixes silent error in ONNX export" and changes it to `torch.any(mem.flatten(1).bool(), dim=1)`: exported as is,
`any` over a float tensor gives wrong masks (small nonzero memory values count as zero), so the memory is silently
masked out.

Source: https://github.com/lucidrains/x-transformers/commit/a02776ae65a0255c0e21eca12e4a5a7b86108077
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "seq"}, "mask": {0: "batch", 1: "seq"}, "mem": {0: "batch", 1: "mem_len"}}
BLIND = "operators-48"


def exists(val):
    return val is not None


def max_neg_value(tensor):
    return -torch.finfo(tensor.dtype).max


class Attention(nn.Module):
    """Trimmed x_transformers.Attention: self-attention whose keys/values also see the memory `mem`."""

    def __init__(self, dim=32, dim_head=8, heads=4):
        super().__init__()
        self.scale = dim_head ** -0.5
        self.heads = heads
        inner = dim_head * heads
        self.to_q = nn.Linear(dim, inner, bias=False)
        self.to_k = nn.Linear(dim, inner, bias=False)
        self.to_v = nn.Linear(dim, inner, bias=False)
        self.to_out = nn.Linear(inner, dim, bias=False)

    def forward(self, x, mask=None, mem=None):
        b, n, _, h = *x.shape, self.heads
        kv_input = x
        if exists(mem):
            kv_input = torch.cat((mem, x), dim=-2)

        q = self.to_q(x)
        k = self.to_k(kv_input)
        v = self.to_v(kv_input)
        # rearrange(t, 'b n (h d) -> b h n d', h = h)
        q, k, v = map(lambda t: t.reshape(b, t.shape[1], h, -1).transpose(1, 2), (q, k, v))

        input_mask = mask

        if exists(input_mask) and exists(mem):
            M = mem.shape[1]
            attend = torch.any(mem.flatten(1), dim=1)
            pad = attend[:, None].repeat(1, M)  # repeat(attend, 'b -> b m', m=M)
            input_mask = torch.cat([pad, mask], 1)

        dots = torch.einsum('b h i d, b h j d -> b h i j', q, k) * self.scale
        mask_value = max_neg_value(dots)
        if exists(input_mask):
            dots = dots.masked_fill(~input_mask[:, None, None, :], mask_value)
        attn = dots.softmax(dim=-1)
        out = torch.einsum('b h i j, b h j d -> b h i d', attn, v)
        out = out.transpose(1, 2).reshape(b, n, -1)
        return self.to_out(out)


def make_model():
    return Attention().eval()


def _inputs(b, n, m, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(b, n, 32, generator=g)
    mask = torch.ones(b, n, dtype=torch.bool)
    mask[0, n - 2:] = False
    # memories carried over from the previous segment (small activations); the first sample has none yet
    mem = torch.randn(b, m, 32, generator=g) * 0.1
    mem[0] = 0.0
    return (x, mask, mem)


def example_inputs():
    return _inputs(2, 6, 4, 0)


def other_inputs():
    return [_inputs(3, 9, 5, 1), _inputs(1, 4, 3, 2)]


def probe_inputs():
    return other_inputs()
