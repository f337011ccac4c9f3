"""Flux-style joint attention whose QK-norm is diffusers' RMSNorm, which on torch >= 2.4 calls
`nn.functional.rms_norm(hidden_states, normalized_shape=(hidden_states.shape[-1],), weight=self.weight,
eps=self.eps)`; the legacy exporter the quantize/export script falls back to stops with
"Exporting the operator 'aten::rms_norm' to ONNX opset version 20 is not supported".

Source: https://github.com/NVIDIA/Model-Optimizer/issues/262
"""
import numbers

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"hidden_states": {0: "batch", 1: "image_tokens"}}
BLIND = "operators-2"


class RMSNorm(nn.Module):
    def __init__(self, dim, eps: float, elementwise_affine: bool = True, bias: bool = False):
        super().__init__()
        self.eps = eps
        self.elementwise_affine = elementwise_affine

        if isinstance(dim, numbers.Integral):
            dim = (dim,)

        self.dim = torch.Size(dim)

        self.weight = None
        self.bias = None

        if elementwise_affine:
            self.weight = nn.Parameter(torch.ones(dim))
            if bias:
                self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, hidden_states):
        # is_torch_version(">=", "2.4") branch
        if self.weight is not None:
            # convert into half-precision if necessary
            if self.weight.dtype in [torch.float16, torch.bfloat16]:
                hidden_states = hidden_states.to(self.weight.dtype)
        hidden_states = nn.functional.rms_norm(
            hidden_states, normalized_shape=(hidden_states.shape[-1],), weight=self.weight, eps=self.eps
        )
        if self.bias is not None:
            hidden_states = hidden_states + self.bias
        return hidden_states


class FluxAttention(nn.Module):
    def __init__(self, query_dim=128, heads=4, dim_head=32, eps=1e-6):
        super().__init__()
        self.heads = heads
        inner_dim = heads * dim_head
        self.to_q = nn.Linear(query_dim, inner_dim)
        self.to_k = nn.Linear(query_dim, inner_dim)
        self.to_v = nn.Linear(query_dim, inner_dim)
        self.norm_q = RMSNorm(dim_head, eps=eps)
        self.norm_k = RMSNorm(dim_head, eps=eps)
        self.to_out = nn.Linear(inner_dim, query_dim)

    def forward(self, hidden_states):
        batch_size, _, _ = hidden_states.shape
        query = self.to_q(hidden_states)
        key = self.to_k(hidden_states)
        value = self.to_v(hidden_states)

        inner_dim = key.shape[-1]
        head_dim = inner_dim // self.heads

        query = query.view(batch_size, -1, self.heads, head_dim).transpose(1, 2)
        key = key.view(batch_size, -1, self.heads, head_dim).transpose(1, 2)
        value = value.view(batch_size, -1, self.heads, head_dim).transpose(1, 2)

        query = self.norm_q(query)
        key = self.norm_k(key)

        hidden_states = F.scaled_dot_product_attention(query, key, value, dropout_p=0.0, is_causal=False)
        hidden_states = hidden_states.transpose(1, 2).reshape(batch_size, -1, self.heads * head_dim)
        return self.to_out(hidden_states)


def make_model():
    return FluxAttention()


def example_inputs():
    return (torch.randn(2, 64, 128),)


def other_inputs():
    return [(torch.randn(1, 100, 128),), (torch.randn(3, 36, 128),)]


def probe_inputs():
    return other_inputs()
