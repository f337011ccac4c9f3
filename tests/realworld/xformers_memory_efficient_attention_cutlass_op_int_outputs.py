"""An attention module calls xformers' `xops.memory_efficient_attention(q, k, v)`, which dispatches to the
library op `xformers::efficient_attention_forward_cutlass` (returns the output, the logsumexp and two int
RNG values); the report says torch.onnx.export breaks with "RuntimeError: unsupported output type: int,
from operator: xformers::efficient_attention_forward_cutlass".

Source: https://github.com/facebookresearch/xformers/issues/936
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"q": {0: "batch", 1: "seq"}, "k": {0: "batch", 1: "seq"}, "v": {0: "batch", 1: "seq"}}
BLIND = "operators-33"

# xformers 0.0.22 registers this op in C++ (TORCH_LIBRARY(xformers, m)); the same schema is registered
# here with a math reference standing in for the CUDA cutlass kernel so that it runs on CPU.
_lib = torch.library.Library("xformers", "DEF")
_lib.define(
    "efficient_attention_forward_cutlass(Tensor query, Tensor key, Tensor value, Tensor? attn_bias, "
    "Tensor? seqstart_q, Tensor? seqstart_k, int? max_seqlen_q, float dropout_p, bool compute_logsumexp, "
    "int custom_mask_type, float? scale, Tensor? seqlen_k, int? window_size) -> (Tensor, Tensor, int, int)"
)


def _cutlass_fwd_reference(query, key, value, attn_bias, seqstart_q, seqstart_k, max_seqlen_q, dropout_p,
                           compute_logsumexp, custom_mask_type, scale, seqlen_k, window_size):
    scale = query.shape[-1] ** -0.5 if scale is None else scale
    attn = torch.einsum("bmhk,bnhk->bhmn", query, key) * scale
    if attn_bias is not None:
        attn = attn + attn_bias
    lse = torch.logsumexp(attn, dim=-1)
    out = torch.einsum("bhmn,bnhk->bmhk", attn.softmax(-1), value)
    return out, lse, 0, 0


_lib.impl("efficient_attention_forward_cutlass", _cutlass_fwd_reference, "CompositeExplicitAutograd")


def memory_efficient_attention(query, key, value, attn_bias=None, p=0.0, scale=None):
    # xformers.ops.fmha: _memory_efficient_attention_forward -> cutlass.FwOp.apply
    out, lse, rng_seed, rng_offset = torch.ops.xformers.efficient_attention_forward_cutlass(
        query=query, key=key, value=value, attn_bias=attn_bias, seqstart_q=None, seqstart_k=None,
        max_seqlen_q=-1, dropout_p=p, compute_logsumexp=False, custom_mask_type=0, scale=scale,
        seqlen_k=None, window_size=None,
    )
    return out


class Attention(nn.Module):
    def forward(self, q, k, v):
        x = memory_efficient_attention(q, k, v)
        return x


def make_model():
    return Attention()


def example_inputs():
    return (torch.randn([4, 32, 12, 64]), torch.randn([4, 32, 12, 64]), torch.randn([4, 32, 12, 64]))


def other_inputs():
    return [
        (torch.randn([2, 48, 12, 64]), torch.randn([2, 48, 12, 64]), torch.randn([2, 48, 12, 64])),
        (torch.randn([1, 7, 12, 64]), torch.randn([1, 7, 12, 64]), torch.randn([1, 7, 12, 64])),
    ]


def probe_inputs():
    return other_inputs()
