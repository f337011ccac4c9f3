"""Cohere's rotary embedding (adapted from HF transformers, as in the report) duplicates each frequency with
`torch.repeat_interleave(freqs, 2, dim=-1)`; the report (found while adding Cohere ONNX export to Optimum) says this
single repeat_interleave makes the exported ONNX model invalid when run in onnxruntime.

Source: https://github.com/pytorch/pytorch/issues/128505
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "seq"}, "position_ids": {0: "batch", 1: "seq"}}
BLIND = "operators-61"


class CohereRotaryEmbedding(nn.Module):
    def __init__(self, dim=16, max_position_embeddings=2048, base=10000, device=None, scaling_factor=1.0):
        super().__init__()
        self.scaling_factor = scaling_factor
        self.dim = dim
        self.max_position_embeddings = max_position_embeddings
        self.base = base
        inv_freq = 1.0 / (self.base ** (torch.arange(0, self.dim, 2, dtype=torch.int64).float().to(device) / self.dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    @torch.no_grad()
    def forward(self, x, position_ids):
        # x: [bs, num_attention_heads, seq_len, head_size]
        inv_freq_expanded = self.inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
        position_ids_expanded = position_ids[:, None, :].float()

        # Force float32 since bfloat16 loses precision on long contexts
        device_type = x.device.type
        device_type = device_type if isinstance(device_type, str) and device_type != "mps" else "cpu"
        with torch.autocast(device_type=device_type, enabled=False):
            freqs = (inv_freq_expanded.float() @ position_ids_expanded.float()).transpose(1, 2)
            emb = torch.repeat_interleave(freqs, 2, dim=-1)
            cos = emb.cos()
            sin = emb.sin()
        return cos, sin


def make_model():
    return CohereRotaryEmbedding().eval()


def _inputs(batch, seq):
    return (torch.randn(batch, 4, seq, 16), torch.arange(seq).unsqueeze(0).repeat(batch, 1))


def example_inputs():
    return _inputs(2, 7)


def other_inputs():
    return [_inputs(3, 9), _inputs(1, 5)]


def probe_inputs():
    return other_inputs()
