"""GPTQ-quantized linear layer (auto-gptq qlinear_cuda_old) unpacking 4-bit weights with
`torch.bitwise_right_shift` / `torch.bitwise_and`; "Exporting the operator
'aten::bitwise_right_shift' to ONNX opset version 17 is not supported".

Source: https://github.com/pytorch/pytorch/issues/126194
"""
import math

import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "seq"}}
BLIND = "operators-1"


class QuantLinear(nn.Module):
    def __init__(self, bits=4, group_size=16, infeatures=64, outfeatures=32):
        super().__init__()
        self.infeatures = infeatures
        self.outfeatures = outfeatures
        self.bits = bits
        self.group_size = group_size
        self.maxq = 2 ** self.bits - 1
        self.register_buffer('qweight', torch.randint(-2 ** 31, 2 ** 31 - 1,
                             (infeatures // 32 * self.bits, outfeatures), dtype=torch.int32))
        self.register_buffer('qzeros', torch.randint(-2 ** 31, 2 ** 31 - 1,
                             (math.ceil(infeatures / self.group_size), outfeatures // 32 * self.bits),
                             dtype=torch.int32))
        self.register_buffer('scales', torch.rand(math.ceil(infeatures / self.group_size), outfeatures) * 0.01)
        self.register_buffer('bias', torch.zeros(outfeatures))
        self.wf = torch.tensor(list(range(0, 32, self.bits)), dtype=torch.int32).unsqueeze(0)

    def forward(self, x):
        out_shape = x.shape[:-1] + (self.outfeatures,)
        x = x.reshape(-1, x.shape[-1])
        if self.wf.device != self.qzeros.device:
            self.wf = self.wf.to(self.qzeros.device)

        zeros = torch.bitwise_right_shift(torch.unsqueeze(self.qzeros, 2).expand(-1, -1, 32 // self.bits),
                                          self.wf.unsqueeze(0)).to(torch.int16 if self.bits == 8 else torch.int8)
        zeros = zeros + 1
        zeros = torch.bitwise_and(zeros, (2 ** self.bits) - 1)
        zeros = zeros.reshape(-1, 1, zeros.shape[1] * zeros.shape[2])

        scales = self.scales
        scales = scales.reshape(-1, 1, scales.shape[-1])

        weight = torch.bitwise_right_shift(torch.unsqueeze(self.qweight, 1).expand(-1, 32 // self.bits, -1),
                                           self.wf.unsqueeze(-1)).to(torch.int16 if self.bits == 8 else torch.int8)
        weight = torch.bitwise_and(weight, (2 ** self.bits) - 1)
        weight = weight.reshape(-1, self.group_size, weight.shape[2])
        weight = (scales * (weight - zeros))
        weight = weight.reshape(weight.shape[0] * weight.shape[1], weight.shape[2])

        out = torch.matmul(x.to(weight.dtype), weight)
        out = out.reshape(out_shape)
        out = out + self.bias if self.bias is not None else out
        return out


def make_model():
    return QuantLinear()


def example_inputs():
    return (torch.randn(2, 5, 64),)


def other_inputs():
    return [(torch.randn(3, 9, 64),), (torch.randn(1, 2, 64),)]


def probe_inputs():
    return other_inputs()
