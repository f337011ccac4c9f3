"""Llama-2-7B-GPTQ loaded with GPTQConfig(bits=8, disable_exllama=True) on CPU: the auto-gptq
QuantLinear (qlinear_cuda_old, non-kernel path) unpacks the 8-bit qweight/qzeros from int32 with
torch.bitwise_right_shift / torch.bitwise_and before the matmul; torch.onnx.export fails with
"Exporting the operator 'aten::bitwise_right_shift' to ONNX opset version 17 is not supported"
(on torch 2.13 the TorchScript exporter stops on the `torch.bitwise_and(..., out=...)` next to it).

Source: https://github.com/pytorch/pytorch/issues/119621
"""
import math

import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "seq"}}
BLIND = "operators-10"


class QuantLinear(nn.Module):
    def __init__(self, bits, group_size, infeatures, outfeatures, bias):
        super().__init__()
        self.infeatures, self.outfeatures, self.bits = infeatures, outfeatures, bits
        self.group_size = group_size if group_size != -1 else infeatures
        self.maxq = 2 ** self.bits - 1
        g = torch.Generator().manual_seed(infeatures * 7 + outfeatures)
        self.register_buffer("qweight", torch.randint(-2 ** 31, 2 ** 31 - 1, (infeatures // 32 * self.bits, outfeatures), dtype=torch.int32, generator=g))
        self.register_buffer("qzeros", torch.randint(-2 ** 31, 2 ** 31 - 1, (math.ceil(infeatures / self.group_size), outfeatures // 32 * self.bits), dtype=torch.int32, generator=g))
        self.register_buffer("scales", torch.rand((math.ceil(infeatures / self.group_size), outfeatures), generator=g) * 1e-3)
        self.register_buffer("g_idx", torch.tensor([i // self.group_size for i in range(infeatures)], dtype=torch.int32))
        self.register_buffer("bias", torch.zeros(outfeatures) if bias else None)
        self.wf = torch.tensor(list(range(0, 32, self.bits)), dtype=torch.int32).unsqueeze(0)

    def forward(self, x):
        x_dtype = x.dtype
        out_shape = x.shape[:-1] + (self.outfeatures,)
        x = x.reshape(-1, x.shape[-1])
        if self.wf.device != self.qzeros.device:
            self.wf = self.wf.to(self.qzeros.device)

        if self.bits in [2, 4, 8]:
            zeros = torch.bitwise_right_shift(torch.unsqueeze(self.qzeros, 2).expand(-1, -1, 32 // self.bits), self.wf.unsqueeze(0)).to(torch.int16 if self.bits == 8 else torch.int8)
            torch.bitwise_and(zeros, (2 ** self.bits) - 1, out=zeros)

            zeros = zeros + 1
            zeros = zeros.reshape(-1, 1, zeros.shape[1] * zeros.shape[2])

            scales = self.scales
            scales = scales.reshape(-1, 1, scales.shape[-1])

            weight = torch.bitwise_right_shift(torch.unsqueeze(self.qweight, 1).expand(-1, 32 // self.bits, -1), self.wf.unsqueeze(-1)).to(torch.int16 if self.bits == 8 else torch.int8)
            torch.bitwise_and(weight, (2 ** self.bits) - 1, out=weight)
            weight = weight.reshape(-1, self.group_size, weight.shape[2])
        else:
            raise NotImplementedError("Only 2,4,8 bits are supported.")

        weight = (scales * (weight - zeros))
        weight = weight.reshape(weight.shape[0] * weight.shape[1], weight.shape[2])
        out = torch.matmul(x.to(weight.dtype), weight)
        out = out.to(dtype=x_dtype).reshape(out_shape)
        out = out + self.bias if self.bias is not None else out
        return out


class LlamaMLP(nn.Module):
    def __init__(self, hidden_size=128, intermediate_size=256, bits=8, group_size=64):
        super().__init__()
        self.gate_proj = QuantLinear(bits, group_size, hidden_size, intermediate_size, False)
        self.up_proj = QuantLinear(bits, group_size, hidden_size, intermediate_size, False)
        self.down_proj = QuantLinear(bits, group_size, intermediate_size, hidden_size, False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


def make_model():
    return LlamaMLP().eval()


def example_inputs():
    return (torch.randn(1, 8, 128),)


def other_inputs():
    return [(torch.randn(2, 13, 128),), (torch.randn(3, 5, 128),)]


def probe_inputs():
    return other_inputs()
