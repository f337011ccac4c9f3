"""attn2d (elbayadm, Pervasive Attention) GridGatedMAX aggregator: GLU over the (target x source) grid,
then a causal max over the source axis done as `F.pad(x, (Ts - 1, 0), ...)` +
`F.max_pool2d(x, (1, Ts), ...)` with the kernel taken from the input size, and forward returns
`(x, None)`.  The AOTInductor sweep over the 14k paritybench models reports it failing in export with
"AssertionError: original output # 2 is None, but only the following types are supported: (Tensor,
SymInt, SymFloat, SymBool)" (example ./generated/test_elbayadm_attn2d.py:GridGatedMAX).  With the
source length dynamic, the pooling kernel `(1, Ts)` built from the input size is what pins the export.

Source: https://github.com/pytorch/pytorch/issues/111250
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 1: "tgt_len", 2: "src_len"}}
BLIND = "domains-83"


def Linear(in_features, out_features, bias=True):
    m = nn.Linear(in_features, out_features, bias)
    nn.init.xavier_uniform_(m.weight)
    if bias:
        nn.init.constant_(m.bias, 0.0)
    return m


class GridGatedMAX(nn.Module):

    def __init__(self, args, num_features):
        super().__init__()
        self.linear = Linear(num_features, 2 * num_features)

    def one_step(self, x, need_attention_weights=False):
        x = x[:, -1:]
        x = F.glu(self.linear(x), dim=-1)
        if not need_attention_weights:
            x, _ = x.max(dim=2)
            return x, None
        if need_attention_weights:
            B, Tt, Ts, C = x.size()
            x, indices = x.max(dim=2)
            attn = x.new_zeros(B, Tt, Ts)
            for i in range(Ts):
                attn[:, :, i] = indices.eq(i).sum(dim=-1)
            attn = attn / attn.sum(dim=-1, keepdim=True)
        return x, attn

    def forward(self, x, need_attention_weights=False):
        B, Tt, Ts, C = x.size()
        x = F.glu(self.linear(x), dim=-1)
        x = x.permute(0, 3, 1, 2)
        x = F.pad(x, (Ts - 1, 0), 'constant', -1000)
        x = F.max_pool2d(x, (1, Ts), (1, 1), 0, 1, False, False)
        x = x.permute(0, 2, 3, 1)
        return x, None


def make_model():
    return GridGatedMAX(None, num_features=16).eval()


def example_inputs():
    return (torch.rand(2, 7, 9, 16),)


def other_inputs():
    return [(torch.rand(3, 5, 12, 16),), (torch.rand(1, 11, 4, 16),)]


def probe_inputs():
    return other_inputs()
