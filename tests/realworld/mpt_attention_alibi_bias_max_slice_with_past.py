"""MosaicML MPT (custom modeling code) exported to ONNX with past key/values: the attention slices its cached
ALiBi bias with Python `max(0, attn_bias.size(3) - s_k)` and only applies the causal mask
`if is_causal and (not q.size(2) == 1)`; after conversion the reporter "cannot get the model to produce more than
1 new token" and suspects "something missing with sequence length".

Source: https://github.com/huggingface/optimum/issues/1174
"""
import math

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {
    "x": {0: "batch", 1: "seq"},
    "past_key": {0: "batch", 3: "past_seq"},
    "past_value": {0: "batch", 2: "past_seq"},
}
BLIND = "domains-32"


def gen_slopes(n_heads, alibi_bias_max=8, device=None):
    _n_heads = 2 ** math.ceil(math.log2(n_heads))
    m = torch.arange(1, _n_heads + 1, dtype=torch.float32, device=device)
    m = m.mul(alibi_bias_max / _n_heads)
    slopes = 1.0 / torch.pow(2, m)
    if _n_heads != n_heads:
        slopes = torch.concat([slopes[1::2], slopes[::2]])[:n_heads]
    return slopes.view(1, n_heads, 1, 1)


def build_alibi_bias(n_heads, seq_len, full=False, alibi_bias_max=8, device=None, dtype=None):
    alibi_bias = torch.arange(1 - seq_len, 1, dtype=torch.int32, device=device).view(1, 1, 1, seq_len)
    slopes = gen_slopes(n_heads, alibi_bias_max, device=device)
    alibi_bias = alibi_bias * slopes
    return alibi_bias.to(dtype=dtype)


def scaled_multihead_dot_product_attention(query, key, value, n_heads, past_key_value=None, softmax_scale=None,
                                           attn_bias=None, is_causal=False):
    # rearrange(query, 'b s (h d) -> b h s d'), rearrange(key, 'b s (h d) -> b h d s'), ...
    b, s, hd = query.shape
    q = query.view(b, s, n_heads, hd // n_heads).permute(0, 2, 1, 3)
    k = key.view(b, s, n_heads, hd // n_heads).permute(0, 2, 3, 1)
    v = value.view(b, s, n_heads, hd // n_heads).permute(0, 2, 1, 3)
    if past_key_value is not None:
        if len(past_key_value) != 0:
            k = torch.cat([past_key_value[0], k], dim=3)
            v = torch.cat([past_key_value[1], v], dim=2)
        past_key_value = (k, v)
    (b, _, s_q, d) = q.shape
    s_k = k.size(-1)
    if softmax_scale is None:
        softmax_scale = 1 / math.sqrt(d)
    attn_weight = q.matmul(k) * softmax_scale
    if attn_bias is not None:
        _s_q = max(0, attn_bias.size(2) - s_q)
        _s_k = max(0, attn_bias.size(3) - s_k)
        attn_bias = attn_bias[:, :, _s_q:, _s_k:]
        if attn_bias.size(-1) != 1 and attn_bias.size(-1) != s_k or (attn_bias.size(-2) != 1 and attn_bias.size(-2) != s_q):
            raise RuntimeError(f'attn_bias (shape: {attn_bias.shape}) is expected to broadcast to shape: {attn_weight.shape}.')
        attn_weight = attn_weight + attn_bias
    min_val = torch.finfo(q.dtype).min
    if is_causal and (not q.size(2) == 1):
        s = max(s_q, s_k)
        causal_mask = attn_weight.new_ones(s, s, dtype=torch.float16)
        causal_mask = causal_mask.tril()
        causal_mask = causal_mask.to(torch.bool)
        causal_mask = ~causal_mask
        causal_mask = causal_mask[-s_q:, -s_k:]
        attn_weight = attn_weight.masked_fill(causal_mask.view(1, 1, s_q, s_k), min_val)
    attn_weight = torch.softmax(attn_weight, dim=-1)
    out = attn_weight.matmul(v)
    out = out.permute(0, 2, 1, 3).reshape(b, s_q, -1)  # rearrange(out, 'b h s d -> b s (h d)')
    return (out, attn_weight, past_key_value)


class MultiheadAttention(nn.Module):
    def __init__(self, d_model=32, n_heads=4, max_seq_len=64):
        super().__init__()
        self.d_model = d_model
        self.n_heads = n_heads
        self.Wqkv = nn.Linear(d_model, 3 * d_model)
        self.out_proj = nn.Linear(d_model, d_model)
        # MPTModel._attn_bias: built once for config.max_seq_len and kept on the module
        self.register_buffer("attn_bias", build_alibi_bias(n_heads, max_seq_len, dtype=torch.float32))

    def forward(self, x, past_key, past_value):
        qkv = self.Wqkv(x)
        (query, key, value) = qkv.chunk(3, dim=2)
        (context, attn_weights, past_key_value) = scaled_multihead_dot_product_attention(
            query, key, value, self.n_heads, past_key_value=(past_key, past_value),
            attn_bias=self.attn_bias, is_causal=True)
        return self.out_proj(context), past_key_value[0], past_key_value[1]


def make_model():
    return MultiheadAttention().eval()


def _inputs(batch, seq, past):
    return (torch.randn(batch, seq, 32), torch.randn(batch, 4, 8, past), torch.randn(batch, 4, past, 8))


def example_inputs():
    # decoder_with_past export: one new token, 16 cached
    return _inputs(2, 1, 16)


def other_inputs():
    return [_inputs(3, 4, 9), _inputs(1, 6, 20)]


def probe_inputs():
    return other_inputs()
