"""Transformer-layer linear with FP8 (TransformerEngine style): input and weight are scaled, cast to
`torch.float8_e4m3fn`, cast back and multiplied. The report asks for ONNX export with float8 types;
the maintainers answer that the TorchScript exporter (opset <= 18) cannot export FP8 dtypes.

Source: https://github.com/NVIDIA/TransformerEngine/issues/228
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"inp": {0: "batch", 1: "seq"}}
BLIND = "operators-16"


class Fp8Linear(nn.Module):
    def __init__(self, in_features=32, out_features=48):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(out_features, in_features) * 0.1)
        self.bias = nn.Parameter(torch.zeros(out_features))
        # delayed-scaling state: scale and its inverse for input (0) and weight (1)
        self.register_buffer("scale", torch.tensor([64.0, 512.0]))
        self.register_buffer("scale_inv", torch.tensor([1.0 / 64.0, 1.0 / 512.0]))

    def forward(self, inp):
        inp_fp8 = (inp * self.scale[0]).to(torch.float8_e4m3fn)
        weight_fp8 = (self.weight * self.scale[1]).to(torch.float8_e4m3fn)
        inp_dq = inp_fp8.to(inp.dtype) * self.scale_inv[0]
        weight_dq = weight_fp8.to(inp.dtype) * self.scale_inv[1]
        return torch.matmul(inp_dq, weight_dq.t()) + self.bias


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm(32)
        self.fc = Fp8Linear(32, 48)

    def forward(self, inp):
        return torch.nn.functional.gelu(self.fc(self.ln(inp)))


def make_model():
    return Block()


def example_inputs():
    return (torch.randn(2, 8, 32),)


def other_inputs():
    return [(torch.randn(3, 13, 32),), (torch.randn(1, 5, 32),)]


def probe_inputs():
    return other_inputs()
