"""ExecuTorch's Llama attention-sink RoPE (`RopeWithAttentionSink.get_freqs`) in dynamic-shape mode
takes the chunk start with `input_pos[-1].item()`, branches in Python on `input_pos_item < self.sink_size`
to remap it into the ring buffer, then `narrow`s the cos/sin tables from the remapped start. The PR
"Remap every position in get_freqs" says branching on that data-dependent value blocks export (and a
chunk crossing the ring top reads past it), and remaps the whole position tensor with tensor ops
instead. Here the frequencies rotate the q/k projections of one decoder step.

Source: https://github.com/pytorch/executorch/pull/21941
"""
from types import SimpleNamespace
from typing import Optional

import torch
from torch import nn

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {"x": {1: "seq_len"}}
BLIND = "domains-37"


def precompute_freqs_cis(dim: int, end: int, theta: float = 10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, device=freqs.device)
    freqs = torch.outer(t, freqs).float()
    freqs_cos = torch.cos(freqs)
    freqs_sin = torch.sin(freqs)
    return freqs_cos, freqs_sin


def reshape_for_broadcast(freqs_cis: torch.Tensor, x: torch.Tensor):
    ndim = x.ndim
    # freqs_cis: (seq_len, head_dim // 2)
    assert freqs_cis.shape == (x.shape[1], x.shape[-1])
    shape = [d if i == 1 or i == ndim - 1 else 1 for i, d in enumerate(x.shape)]
    return freqs_cis.view(shape)


def apply_rotary_emb(xq, xk, freqs_cos, freqs_sin):
    xq_r, xq_i = xq.float().reshape(xq.shape[:-1] + (-1, 2)).unbind(-1)
    xk_r, xk_i = xk.float().reshape(xk.shape[:-1] + (-1, 2)).unbind(-1)

    freqs_cos = reshape_for_broadcast(freqs_cos, xq_r)
    freqs_sin = reshape_for_broadcast(freqs_sin, xq_r)

    xq_out_r = xq_r * freqs_cos - xq_i * freqs_sin
    xq_out_i = xq_r * freqs_sin + xq_i * freqs_cos
    xk_out_r = xk_r * freqs_cos - xk_i * freqs_sin
    xk_out_i = xk_r * freqs_sin + xk_i * freqs_cos

    xq_out = torch.stack([xq_out_r, xq_out_i], dim=-1).flatten(3)
    xk_out = torch.stack([xk_out_r, xk_out_i], dim=-1).flatten(3)

    return xq_out.type_as(xq), xk_out.type_as(xk)


class RopeWithAttentionSink(nn.Module):
    def __init__(self, params, window_size: int, sink_size: int):
        super().__init__()
        self.params = params
        freqs_cos, freqs_sin = precompute_freqs_cis(params.head_dim, params.max_context_len)
        self.register_buffer("freqs_cos", freqs_cos, persistent=False)
        self.register_buffer("freqs_sin", freqs_sin, persistent=False)
        self.window_size = window_size
        self.sink_size = sink_size
        self.ring_size = window_size * 2

    def get_freqs(self, input_pos: Optional[torch.Tensor], seq_len: int):
        assert input_pos is not None
        if not self.params.use_kv_cache:
            return self.freqs_cos[:seq_len], self.freqs_sin[:seq_len]

        if self.params.enable_dynamic_shape:
            # Dynamic shape: input_pos is [start_pos], remap and narrow
            input_pos_item = input_pos[-1].item()
            if input_pos_item < self.sink_size:
                remapped_item = input_pos_item
            else:
                remapped_item = (
                    self.sink_size + (input_pos_item - self.sink_size) % self.ring_size
                )
            torch._check_is_size(remapped_item)
            torch._check(remapped_item + seq_len <= self.sink_size + self.ring_size)
            freqs_cos = self.freqs_cos.narrow(0, remapped_item, seq_len)
            freqs_sin = self.freqs_sin.narrow(0, remapped_item, seq_len)
        return freqs_cos, freqs_sin


class SinkRopeStep(nn.Module):
    def __init__(self, dim=32, n_heads=2, window_size=8, sink_size=4):
        super().__init__()
        self.params = SimpleNamespace(
            head_dim=dim // n_heads, max_context_len=64, use_kv_cache=True, enable_dynamic_shape=True
        )
        self.n_heads = n_heads
        self.wq = nn.Linear(dim, dim, bias=False)
        self.wk = nn.Linear(dim, dim, bias=False)
        self.rope = RopeWithAttentionSink(self.params, window_size=window_size, sink_size=sink_size)

    def forward(self, x, input_pos):
        bsz, seqlen, _ = x.shape
        q = self.wq(x).view(bsz, seqlen, self.n_heads, -1)
        k = self.wk(x).view(bsz, seqlen, self.n_heads, -1)
        freqs_cos, freqs_sin = self.rope.get_freqs(input_pos, seqlen)
        q, k = apply_rotary_emb(q, k, freqs_cos, freqs_sin)
        return q, k


def make_model():
    return SinkRopeStep().eval()


def example_inputs():
    # a 3-token chunk starting at position 2 (inside the sink)
    return (torch.randn(1, 3, 32), torch.tensor([2]))


def other_inputs():
    return [
        (torch.randn(1, 5, 32), torch.tensor([9])),   # inside the ring, no wrap
        (torch.randn(1, 1, 32), torch.tensor([30])),  # decode step after wrapping: 4 + 26 % 16 = 14
    ]


def probe_inputs():
    return other_inputs()
