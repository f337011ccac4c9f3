"""Model whose attention block is the built-in nn.MultiheadAttention(256, 8, batch_first=True) used as
self-attention over a variable-length sequence, exported in inference mode: torch.onnx.export fails with
"Exporting the operator 'aten::_native_multi_head_attention' to ONNX opset version 18 is not supported";
with the MHA fast path disabled the export passes but the ONNX model then fails on other sequence
lengths (Reshape "input shape {96,32,256}, requested shape {100,256,32}").

Source: https://github.com/pytorch/pytorch/issues/143107
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "seq_len"}}
BLIND = "operators-5"


class AttentionBlock(nn.Module):
    def __init__(self, d_model=256, n_heads=8):
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.attention = nn.MultiheadAttention(d_model, n_heads, batch_first=True)
        self.proj = nn.Linear(d_model, d_model)

    def forward(self, x):
        h = self.norm(x)
        attn_out, _ = self.attention(h, h, h)
        return self.proj(x + attn_out)


def make_model():
    model = AttentionBlock().eval()
    model.requires_grad_(False)  # inference export (torch.no_grad())
    return model


def example_inputs():
    return (torch.randn(4, 20, 256),)


def other_inputs():
    return [(torch.randn(3, 17, 256),), (torch.randn(1, 29, 256),)]


def probe_inputs():
    return other_inputs()
