"""NVIDIA TransformerEngine GPT attention: the unfused softmax path builds its causal mask with
`_get_default_causal_mask(sq)`, a module-level dict that caches one `torch.triu` mask per sequence length;
the PR says this "dynamic allocation and dictionary lookups are not supported by ONNX", so the exported
GPT model cannot handle other sequence lengths.

Source: https://github.com/NVIDIA/TransformerEngine/pull/209
"""
import math
import os
from typing import Callable, Optional

import torch
from torch import nn

CLASS = "cross-call"
FAMILY = "control_flow"
DYNAMIC = {"hidden_states": {0: "seq", 1: "batch"}}
BLIND = "domains-11"


_default_causal_mask = {}

def _get_default_causal_mask(sq: int) -> torch.Tensor:
    """Return the causal upper triangular mask for softmax input"""
    if sq not in _default_causal_mask:
        # device="cuda" in TransformerEngine; CPU here
        _default_causal_mask[sq] = torch.triu(torch.ones(sq, sq, device="cpu"), diagonal=1).bool()
    return _default_causal_mask[sq]


def attention_mask_func(attention_scores: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
    """Get attention mask"""
    attention_scores.masked_fill_(attention_mask, -10000.0)
    return attention_scores


class FusedScaleMaskSoftmax(nn.Module):
    """fused operation: scaling + mask + softmax (only the framework-softmax path is kept)"""

    def __init__(self, attn_mask_type: str, mask_func: Callable, softmax_in_fp32: bool = True) -> None:
        super().__init__()
        self.attn_mask_type = attn_mask_type
        self.scaled_masked_softmax_fusion = bool(int(os.getenv("NVTE_MASKED_SOFTMAX_FUSION", "1")))
        self.mask_func = mask_func
        self.softmax_in_fp32 = softmax_in_fp32

    def forward(self, inp: torch.Tensor, mask: torch.Tensor, scale: Optional[float] = None) -> torch.Tensor:
        """FusedScaleMaskSoftmax fprop"""
        # [b, np, sq, sk]
        assert inp.dim() == 4
        self.input_in_fp16 = inp.dtype == torch.float16
        self.input_in_bf16 = inp.dtype == torch.bfloat16
        self.input_in_float16 = self.input_in_fp16 or self.input_in_bf16
        return self.forward_torch_softmax(inp, mask, scale)

    def forward_torch_softmax(self, inp: torch.Tensor, mask: torch.Tensor, scale: Optional[float] = None) -> torch.Tensor:
        """Framework softmax"""
        if self.input_in_float16 and self.softmax_in_fp32:
            inp = inp.float()

        if scale is not None:
            inp = inp * scale

        if self.attn_mask_type == "causal":
            mask = _get_default_causal_mask(inp.size(2))

        mask_output = self.mask_func(inp, mask) if mask is not None else inp
        probs = torch.nn.Softmax(dim=-1)(mask_output)
        return probs


class GPTSelfAttention(nn.Module):
    """QKV projection + unfused dot-product attention (sbhd layout) + output projection."""

    def __init__(self, hidden_size=64, num_attention_heads=4):
        super().__init__()
        self.np = num_attention_heads
        self.hn = hidden_size // num_attention_heads
        self.norm_factor = math.sqrt(self.hn)
        self.qkv = nn.Linear(hidden_size, 3 * hidden_size)
        self.proj = nn.Linear(hidden_size, hidden_size)
        self.scale_mask_softmax = FusedScaleMaskSoftmax("causal", attention_mask_func, softmax_in_fp32=True)

    def forward(self, hidden_states):
        # [sq, b, h]
        sq, b, _ = hidden_states.size()
        mixed = self.qkv(hidden_states).view(sq, b, self.np, 3 * self.hn)
        query_layer, key_layer, value_layer = torch.split(mixed, self.hn, dim=3)

        # [b, np, sq, sk]
        output_size = (query_layer.size(1), query_layer.size(2), query_layer.size(0), key_layer.size(0))
        query_layer = query_layer.reshape(output_size[2], output_size[0] * output_size[1], -1)
        key_layer = key_layer.reshape(output_size[3], output_size[0] * output_size[1], -1)
        matmul_result = torch.bmm(query_layer.transpose(0, 1), key_layer.transpose(0, 1).transpose(1, 2))
        matmul_result = matmul_result * (1.0 / self.norm_factor)
        attention_scores = matmul_result.view(*output_size)

        attention_probs = self.scale_mask_softmax(attention_scores, None)

        value_layer = value_layer.reshape(value_layer.size(0), output_size[0] * output_size[1], -1)
        attention_probs = attention_probs.view(output_size[0] * output_size[1], output_size[2], -1)
        context_layer = torch.bmm(attention_probs, value_layer.transpose(0, 1))
        context_layer = context_layer.view(b, self.np, sq, self.hn).permute(2, 0, 1, 3).contiguous()
        return self.proj(context_layer.view(sq, b, -1))


def make_model():
    return GPTSelfAttention().eval()


def example_inputs():
    return (torch.randn(16, 2, 64),)


def other_inputs():
    return [(torch.randn(23, 3, 64),), (torch.randn(9, 1, 64),)]


def probe_inputs():
    return other_inputs()
