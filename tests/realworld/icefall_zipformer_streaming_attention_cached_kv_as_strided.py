"""icefall streaming Zipformer (pruned_transducer_stateless7_streaming): the cache-aware
`RelPositionMultiheadAttention.streaming_multi_head_attention_forward` concatenates the cached left-context
keys/values with the current chunk, returns the updated caches, and turns relative into absolute positions
with `pos_weights.as_strided((bsz, num_heads, seq_len, kv_len), (... stride(2) - stride(3) ...),
storage_offset=...)`; "Add streaming onnx export for zipformer" replaces that `as_strided` with an
arange + gather version under `torch.jit.is_tracing()` so the streaming encoder can be exported to ONNX.
(One attention layer of the streaming encoder, chunk length fixed, batch dynamic as in the export script.)

Source: https://github.com/k2-fsa/icefall/pull/831
"""
import torch
from torch import Tensor, nn

CLASS = "views"
FAMILY = "views"
DYNAMIC = {"x": {1: "N"}, "cached_key": {1: "N"}, "cached_val": {1: "N"}}
BLIND = "domains-77"


class RelPositionMultiheadAttention(nn.Module):
    def __init__(self, embed_dim=32, attention_dim=32, num_heads=4, pos_dim=4):
        super().__init__()
        self.embed_dim = embed_dim
        self.attention_dim = attention_dim
        self.num_heads = num_heads
        self.head_dim = attention_dim // num_heads
        self.pos_dim = pos_dim
        in_proj_dim = 2 * attention_dim + attention_dim // 2 + pos_dim * num_heads
        self.in_proj = nn.Linear(embed_dim, in_proj_dim, bias=True)
        self.linear_pos = nn.Linear(embed_dim, num_heads * pos_dim, bias=False)
        self.out_proj = nn.Linear(attention_dim // 2, embed_dim, bias=True)

    def streaming_forward(self, x: Tensor, pos_emb: Tensor, cached_key: Tensor, cached_val: Tensor):
        x, weights, cached_key, cached_val = self.streaming_multi_head_attention_forward(
            self.in_proj(x),
            self.linear_pos(pos_emb),
            self.attention_dim,
            self.num_heads,
            self.out_proj.weight,
            self.out_proj.bias,
            cached_key=cached_key,
            cached_val=cached_val,
        )
        return x, weights, cached_key, cached_val

    def streaming_multi_head_attention_forward(self, x_proj, pos, attention_dim, num_heads,
                                               out_proj_weight, out_proj_bias, cached_key, cached_val):
        seq_len, bsz, _ = x_proj.size()

        head_dim = attention_dim // num_heads
        pos_dim = self.pos_dim  # positional-encoding dim per head
        assert (
            head_dim * num_heads == attention_dim
        ), f"attention_dim must be divisible by num_heads: {head_dim}, {num_heads}, {attention_dim}"

        # self-attention
        q = x_proj[..., 0:attention_dim]
        k = x_proj[..., attention_dim : 2 * attention_dim]
        value_dim = attention_dim // 2
        v = x_proj[..., 2 * attention_dim : 2 * attention_dim + value_dim]
        # p is the position-encoding query, its dimension is num_heads*pos_dim..
        p = x_proj[..., 2 * attention_dim + value_dim :]

        left_context_len = cached_key.shape[0]
        assert left_context_len > 0, left_context_len
        assert cached_key.shape[0] == cached_val.shape[0], (
            cached_key.shape,
            cached_val.shape,
        )
        # Pad cached left contexts
        k = torch.cat([cached_key, k], dim=0)
        v = torch.cat([cached_val, v], dim=0)
        # Update cached left contexts
        cached_key = k[-left_context_len:, ...]
        cached_val = v[-left_context_len:, ...]

        # The length of key and value
        kv_len = k.shape[0]

        q = q.reshape(seq_len, bsz, num_heads, head_dim)
        p = p.reshape(seq_len, bsz, num_heads, pos_dim)
        k = k.reshape(kv_len, bsz, num_heads, head_dim)
        v = v.reshape(kv_len, bsz * num_heads, head_dim // 2).transpose(0, 1)

        q = q.permute(1, 2, 0, 3)  # (batch, head, time1, head_dim)
        p = p.permute(1, 2, 0, 3)  # (batch, head, time1, pos_dim)
        k = k.permute(1, 2, 3, 0)  # (batch, head, d_k, time2)

        seq_len2 = 2 * seq_len - 1 + left_context_len
        pos = pos.reshape(1, seq_len2, num_heads, pos_dim).permute(0, 2, 3, 1)
        # pos shape now: (batch, head, pos_dim, seq_len2)

        pos_weights = torch.matmul(p, pos)
        # the following .as_strided() expression converts the last axis of pos_weights from relative
        # to absolute position.
        pos_weights = pos_weights.as_strided(
            (bsz, num_heads, seq_len, kv_len),
            (
                pos_weights.stride(0),
                pos_weights.stride(1),
                pos_weights.stride(2) - pos_weights.stride(3),
                pos_weights.stride(3),
            ),
            storage_offset=pos_weights.stride(3) * (seq_len - 1),
        )

        # caution: they are really scores at this point.
        attn_output_weights = torch.matmul(q, k) + pos_weights
        attn_output_weights = attn_output_weights.view(bsz * num_heads, seq_len, kv_len)
        attn_output_weights = attn_output_weights.softmax(dim=-1)

        attn_output = torch.bmm(attn_output_weights, v)
        assert list(attn_output.size()) == [bsz * num_heads, seq_len, head_dim // 2]
        attn_output = (
            attn_output.transpose(0, 1)
            .contiguous()
            .view(seq_len, bsz, attention_dim // 2)
        )
        attn_output = nn.functional.linear(attn_output, out_proj_weight, out_proj_bias)

        return attn_output, attn_output_weights, cached_key, cached_val


class StreamingEncoderLayer(nn.Module):
    def __init__(self, embed_dim=32, chunk=8, left_context=16):
        super().__init__()
        self.self_attn = RelPositionMultiheadAttention(embed_dim)
        # RelPositionalEncoding output for a fixed chunk + left context: (1, 2*chunk-1+left, embed)
        self.register_buffer("pos_emb", torch.randn(1, 2 * chunk - 1 + left_context, embed_dim))

    def forward(self, x, cached_key, cached_val):
        out, _, cached_key, cached_val = self.self_attn.streaming_forward(x, self.pos_emb, cached_key, cached_val)
        return x + out, cached_key, cached_val


def make_model():
    return StreamingEncoderLayer().eval()


def example_inputs():
    # x: (chunk, N, embed); caches: (left_context, N, attention_dim) / (left_context, N, attention_dim // 2)
    return (torch.randn(8, 2, 32), torch.randn(16, 2, 32), torch.randn(16, 2, 16))


def other_inputs():
    return [
        (torch.randn(8, 3, 32), torch.randn(16, 3, 32), torch.randn(16, 3, 16)),
        (torch.randn(8, 1, 32), torch.randn(16, 1, 32), torch.randn(16, 1, 16)),
    ]


def probe_inputs():
    return other_inputs()
