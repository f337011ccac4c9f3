"""Mistral-7B-Instruct-v0.2-GPTQ exported through optimum (torch.onnx.export, opset 14): the GPTQ
TorchQuantLinear dequantizes its packed int32 qweight/qzeros in forward with
torch.bitwise_right_shift / torch.bitwise_and and gathers per-group scales with g_idx; export stops
with "Exporting the operator 'aten::bitwise_and' to ONNX opset version 14 is not supported".

Source: https://github.com/nod-ai/AMD-SHARK-ModelDev/issues/925
"""
import math

import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "seq"}}
BLIND = "operators-18"


class TorchQuantLinear(nn.Module):
    def __init__(self, bits, group_size, in_features, out_features, bias=False):
        super().__init__()
        self.bits = bits
        self.in_features, self.out_features = in_features, out_features
        self.group_size = group_size if group_size != -1 else in_features
        self.pack_factor = 32 // bits
        self.maxq = 2 ** bits - 1
        g = torch.Generator().manual_seed(in_features * 31 + out_features)
        self.register_buffer("qweight", torch.randint(-2 ** 31, 2 ** 31 - 1, (in_features // self.pack_factor, out_features), dtype=torch.int32, generator=g))
        self.register_buffer("qzeros", torch.randint(-2 ** 31, 2 ** 31 - 1, (math.ceil(in_features / self.group_size), out_features // self.pack_factor), dtype=torch.int32, generator=g))
        self.register_buffer("scales", torch.rand((math.ceil(in_features / self.group_size), out_features), generator=g) * 1e-2)
        self.register_buffer("g_idx", torch.tensor([i // self.group_size for i in range(in_features)], dtype=torch.int32))
        self.register_buffer("bias", torch.zeros(out_features) if bias else None)
        self.wf = torch.tensor(list(range(0, 32, self.bits)), dtype=torch.int32).unsqueeze(0)
        self.wf_unsqueeze_zero = self.wf.unsqueeze(0)
        self.wf_unsqueeze_neg_one = self.wf.unsqueeze(-1)
        self.dequant_dtype = torch.int16 if self.bits == 8 else torch.int8

    def dequantize_weight(self):
        zeros = torch.bitwise_right_shift(
            torch.unsqueeze(self.qzeros, 2).expand(-1, -1, self.pack_factor),
            self.wf_unsqueeze_zero,
        ).to(self.dequant_dtype)
        zeros = torch.bitwise_and(zeros, self.maxq).reshape(self.scales.shape)
        weight = torch.bitwise_and(
            torch.bitwise_right_shift(
                torch.unsqueeze(self.qweight, 1).expand(-1, self.pack_factor, -1),
                self.wf_unsqueeze_neg_one,
            ).to(self.dequant_dtype),
            self.maxq,
        )
        weight = weight.reshape(weight.shape[0] * weight.shape[1], weight.shape[2])
        weights = self.scales[self.g_idx.long()] * (weight - zeros[self.g_idx.long()])
        return weights

    def forward(self, x):
        out_shape = x.shape[:-1] + (self.out_features,)
        x = x.reshape(-1, x.shape[-1])
        out = torch.matmul(x, self.dequantize_weight().to(x.dtype))
        out = out.reshape(out_shape)
        return out + self.bias if self.bias is not None else out


class MistralMLP(nn.Module):
    def __init__(self, hidden_size=64, intermediate_size=128, bits=4, group_size=32):
        super().__init__()
        self.gate_proj = TorchQuantLinear(bits, group_size, hidden_size, intermediate_size)
        self.up_proj = TorchQuantLinear(bits, group_size, hidden_size, intermediate_size)
        self.down_proj = TorchQuantLinear(bits, group_size, intermediate_size, hidden_size)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


def make_model():
    return MistralMLP().eval()


def example_inputs():
    return (torch.randn(1, 7, 64),)


def other_inputs():
    return [(torch.randn(2, 12, 64),), (torch.randn(3, 3, 64),)]


def probe_inputs():
    return other_inputs()
