"""NeoBERT encoder (as vendored by the renikud Hebrew G2P project): llama-style RoPE keeps a complex64
`freqs_cis` buffer built with `torch.polar`, and `apply_rotary_emb` rotates q/k through
`torch.view_as_complex(...) * freqs_cis` / `torch.view_as_real`, guarded by a shape `assert`. The project's
export path had to add a NEOBERT_ONNX_EXPORT switch because "ONNX does not support complex64" (real cos/sin
RoPE instead) and because the assert "fires during ONNX symbolic tracing"; this is the code before the switch.
(xformers' SwiGLU is replaced by the project's own plain-PyTorch PureSwiGLU.)

Source: https://github.com/thewh1teagle/renikud/blob/main/src/neobert/rotary.py
"""
import torch
from torch import nn
from torch.nn.functional import scaled_dot_product_attention
from typing import Tuple

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"}}
BLIND = "operators-35"


def precompute_freqs_cis(dim: int, end: int, theta: float = 10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, device=freqs.device)
    freqs = torch.outer(t, freqs).float()
    return torch.polar(torch.ones_like(freqs), freqs)


def reshape_for_broadcast(freqs_cis: torch.Tensor, x: torch.Tensor):
    assert freqs_cis.shape[1:] == (x.shape[1], x.shape[-1])
    return freqs_cis.contiguous().unsqueeze(2)


def apply_rotary_emb(
    xq: torch.Tensor,
    xk: torch.Tensor,
    freqs_cis: torch.Tensor,
) -> Tuple[torch.Tensor, torch.Tensor]:
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    freqs_cis = reshape_for_broadcast(freqs_cis, xq_)
    xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
    xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


class PureSwiGLU(nn.Module):
    def __init__(self, in_features: int, hidden_features: int, out_features: int, bias: bool = False):
        super().__init__()
        self.w12 = nn.Linear(in_features, hidden_features * 2, bias=bias)
        self.w3 = nn.Linear(hidden_features, out_features, bias=bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x1, x2 = self.w12(x).chunk(2, dim=-1)
        return self.w3(torch.nn.functional.silu(x1) * x2)


class EncoderBlock(nn.Module):
    def __init__(self, hidden_size=64, num_attention_heads=4, intermediate_size=128, norm_eps=1e-6):
        super().__init__()
        self.num_attention_heads = num_attention_heads
        self.dim_head = hidden_size // num_attention_heads
        self.qkv = nn.Linear(in_features=hidden_size, out_features=hidden_size * 3, bias=False)
        self.wo = nn.Linear(in_features=hidden_size, out_features=hidden_size, bias=False)
        multiple_of = 8
        intermediate_size = int(2 * intermediate_size / 3)
        intermediate_size = multiple_of * ((intermediate_size + multiple_of - 1) // multiple_of)
        self.ffn = PureSwiGLU(hidden_size, intermediate_size, hidden_size, bias=False)
        self.attention_norm = nn.RMSNorm(hidden_size, norm_eps)
        self.ffn_norm = nn.RMSNorm(hidden_size, norm_eps)

    def forward(self, x, attention_mask, freqs_cis):
        x = x + self._att_block(self.attention_norm(x), attention_mask, freqs_cis)
        x = x + self.ffn(self.ffn_norm(x))
        return x

    def _att_block(self, x, attention_mask, freqs_cis):
        batch_size, seq_len, _ = x.shape
        xq, xk, xv = self.qkv(x).view(batch_size, seq_len, self.num_attention_heads, self.dim_head * 3).chunk(3, axis=-1)
        xq, xk = apply_rotary_emb(xq, xk, freqs_cis)
        attn = scaled_dot_product_attention(
            query=xq.transpose(1, 2),
            key=xk.transpose(1, 2),
            value=xv.transpose(1, 2),
            attn_mask=attention_mask.bool(),
            dropout_p=0,
        ).transpose(1, 2)
        return self.wo(attn.reshape(batch_size, seq_len, self.num_attention_heads * self.dim_head))


class NeoBERT(nn.Module):
    def __init__(self, vocab_size=104, hidden_size=64, num_attention_heads=4, num_hidden_layers=2, max_length=256):
        super().__init__()
        self.num_attention_heads = num_attention_heads
        self.encoder = nn.Embedding(vocab_size, hidden_size, padding_idx=0)
        freqs_cis = precompute_freqs_cis(hidden_size // num_attention_heads, max_length)
        self.register_buffer("freqs_cis", freqs_cis, persistent=False)
        self.transformer_encoder = nn.ModuleList(
            [EncoderBlock(hidden_size, num_attention_heads) for _ in range(num_hidden_layers)])
        self.layer_norm = nn.RMSNorm(hidden_size, 1e-6)

    def forward(self, input_ids, attention_mask):
        # Expand and repeat: (Batch, Length) -> (Batch, Heads, Length, Length)
        attention_mask = attention_mask.unsqueeze(1).unsqueeze(1).repeat(1, self.num_attention_heads, attention_mask.size(-1), 1)
        freqs_cis = self.freqs_cis[: input_ids.shape[1]].unsqueeze(0)
        x = self.encoder(input_ids)
        for layer in self.transformer_encoder:
            x = layer(x, attention_mask, freqs_cis)
        return self.layer_norm(x)


def make_model():
    return NeoBERT().eval()


def example_inputs():
    return (torch.randint(1, 104, (2, 12)), torch.ones(2, 12, dtype=torch.long))


def other_inputs():
    return [(torch.randint(1, 104, (3, 20)), torch.ones(3, 20, dtype=torch.long)),
            (torch.randint(1, 104, (1, 7)), torch.ones(1, 7, dtype=torch.long))]


def probe_inputs():
    return other_inputs()
