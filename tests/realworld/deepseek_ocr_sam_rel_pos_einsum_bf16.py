"""DeepSeek-OCR's SAM-style image encoder adds decomposed relative-position terms with
`torch.einsum("bhwc,hkc->bhwk", q, rel)`; with the model in bfloat16 the dynamo exporter emits an
ONNX Einsum with bfloat16 inputs, which the Einsum schema (and onnxruntime) does not accept.

Source: https://github.com/onnx/onnx/pull/8313
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"q": {0: "batch", 2: "width"}}
BLIND = "operators-9"


class RelPosBias(nn.Module):  # as in DeepSeek-OCR
    def forward(self, q, rel):
        return torch.einsum("bhwc,hkc->bhwk", q, rel)


def make_model():
    return RelPosBias().to(torch.bfloat16).eval()


def example_inputs():
    return (torch.randn(1, 8, 8, 16, dtype=torch.bfloat16),
            torch.randn(8, 15, 16, dtype=torch.bfloat16))


def other_inputs():
    return [(torch.randn(2, 8, 5, 16, dtype=torch.bfloat16), torch.randn(8, 15, 16, dtype=torch.bfloat16)),
            (torch.randn(3, 8, 11, 16, dtype=torch.bfloat16), torch.randn(8, 15, 16, dtype=torch.bfloat16))]


def probe_inputs():
    return other_inputs()
