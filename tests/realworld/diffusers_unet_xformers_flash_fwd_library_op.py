"""A diffusers UNet attention block with xformers enabled (XFormersAttnProcessor) calls
`xformers.ops.memory_efficient_attention`, whose flash path goes through the op `xformers_flash::flash_fwd`
that xformers registers with `torch.library.Library`; exporting the UNet to ONNX fails with
"UnsupportedOperatorError: ONNX export failed on an operator with unrecognized namespace xformers_flash::flash_fwd".

Source: https://github.com/facebookresearch/xformers/issues/857
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"hidden_states": {0: "batch", 1: "tokens"}}
BLIND = "operators-33"

# xformers/ops/fmha/flash.py: "create library so that flash-attn goes through the PyTorch Dispatcher".
# The real impl calls _C_flashattention.varlen_fwd on CUDA; a math reference stands in for it on CPU.
_flash_lib = torch.library.Library("xformers_flash", "DEF")
_flash_lib.define(
    "flash_fwd(Tensor query, Tensor key, Tensor value, "
    "Tensor? cu_seqlens_q, Tensor? cu_seqlens_k, "
    "int max_seqlen_q, int max_seqlen_k, "
    "float p, float softmax_scale, "
    "bool is_causal, bool return_softmax) -> (Tensor, Tensor, Tensor)"
)


def _flash_fwd(query, key, value, cu_seq_lens_q, cu_seq_lens_k, max_seq_len_q, max_seq_len_k, p,
               softmax_scale, causal, return_softmax):
    # query/key/value: [B*M, H, K] with cu_seqlens marking equal-length sequences of max_seq_len
    b = query.shape[0] // max_seq_len_q
    q = query.reshape(b, max_seq_len_q, *query.shape[1:])
    k = key.reshape(b, max_seq_len_k, *key.shape[1:])
    v = value.reshape(b, max_seq_len_k, *value.shape[1:])
    attn = torch.einsum("bmhk,bnhk->bhmn", q, k) * softmax_scale
    softmax_lse = torch.logsumexp(attn, dim=-1)
    out = torch.einsum("bhmn,bnhk->bmhk", attn.softmax(-1), v).reshape(query.shape)
    return out, softmax_lse, torch.zeros(2, dtype=torch.int64)


_flash_lib.impl("flash_fwd", _flash_fwd, "CompositeExplicitAutograd")


def memory_efficient_attention(query, key, value, attn_bias=None, p=0.0, scale=None, op=None):
    # xformers.ops.fmha.flash.FwOp.apply with _convert_input_format for [B, M, K] inputs (one head)
    if query.ndim == 3:
        query, key, value = query.unsqueeze(2), key.unsqueeze(2), value.unsqueeze(2)
    batch, seqlen_q, num_heads, head_dim = query.shape
    seqlen_kv = key.shape[1]
    cu_seqlens_q = torch.arange(0, (batch + 1) * seqlen_q, step=seqlen_q, dtype=torch.int32)
    cu_seqlens_k = torch.arange(0, (batch + 1) * seqlen_kv, step=seqlen_kv, dtype=torch.int32)
    scale = head_dim ** -0.5 if scale is None else scale
    out, softmax_lse, rng_state = torch.ops.xformers_flash.flash_fwd(
        query.reshape(batch * seqlen_q, num_heads, head_dim),
        key.reshape(batch * seqlen_kv, num_heads, head_dim),
        value.reshape(batch * seqlen_kv, num_heads, head_dim),
        cu_seqlens_q, cu_seqlens_k, seqlen_q, seqlen_kv, p, scale, False, False,
    )
    return out.reshape(batch, seqlen_q, num_heads, head_dim).squeeze(2)


class Attention(nn.Module):
    """diffusers.models.attention_processor.Attention with XFormersAttnProcessor (self-attention)."""

    def __init__(self, query_dim=64, heads=4, dim_head=16):
        super().__init__()
        inner_dim = heads * dim_head
        self.heads = heads
        self.scale = dim_head ** -0.5
        self.to_q = nn.Linear(query_dim, inner_dim, bias=False)
        self.to_k = nn.Linear(query_dim, inner_dim, bias=False)
        self.to_v = nn.Linear(query_dim, inner_dim, bias=False)
        self.to_out = nn.ModuleList([nn.Linear(inner_dim, query_dim), nn.Dropout(0.0)])
        self.attention_op = None

    def head_to_batch_dim(self, tensor):
        batch_size, seq_len, dim = tensor.shape
        tensor = tensor.reshape(batch_size, seq_len, self.heads, dim // self.heads)
        return tensor.permute(0, 2, 1, 3).reshape(batch_size * self.heads, seq_len, dim // self.heads)

    def batch_to_head_dim(self, tensor):
        batch_size, seq_len, dim = tensor.shape
        tensor = tensor.reshape(batch_size // self.heads, self.heads, seq_len, dim)
        return tensor.permute(0, 2, 1, 3).reshape(batch_size // self.heads, seq_len, dim * self.heads)

    def forward(self, hidden_states):
        query = self.to_q(hidden_states)
        key = self.to_k(hidden_states)
        value = self.to_v(hidden_states)
        query = self.head_to_batch_dim(query).contiguous()
        key = self.head_to_batch_dim(key).contiguous()
        value = self.head_to_batch_dim(value).contiguous()
        hidden_states = memory_efficient_attention(
            query, key, value, attn_bias=None, op=self.attention_op, scale=self.scale
        )
        hidden_states = hidden_states.to(query.dtype)
        hidden_states = self.batch_to_head_dim(hidden_states)
        hidden_states = self.to_out[0](hidden_states)
        return self.to_out[1](hidden_states)


def make_model():
    return Attention().eval()


def example_inputs():
    return (torch.randn(2, 64, 64),)


def other_inputs():
    return [(torch.randn(1, 256, 64),), (torch.randn(3, 16, 64),)]


def probe_inputs():
    return other_inputs()
