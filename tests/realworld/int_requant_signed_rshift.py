"""Integer-only (fixed-point) inference layer: an int32 accumulator from an integer matmul is requantised
with `(acc * multiplier) >> shift`, an arithmetic right shift of signed (often negative) values. The report
asks for BitShift on signed types (int8/int32/int64) because ONNX BitShift is unsigned-only, so the PyTorch
exporter has to emulate `>>` on signed tensors with a subgraph.

Source: https://github.com/onnx/onnx/issues/2406
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x_q": {0: "batch", 1: "tokens"}}
BLIND = "operators-11"


class IntegerLinearRequant(nn.Module):
    def __init__(self, in_features=16, out_features=8, multiplier=1519, shift=12):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.register_buffer("weight_q", torch.randint(-127, 128, (out_features, in_features), generator=g))
        self.register_buffer("bias_q", torch.randint(-2000, 2000, (out_features,), generator=g))
        self.multiplier = multiplier
        self.shift = shift

    def forward(self, x_q):
        # x_q: int64 activations already quantised to the int8 range, (batch, tokens, in_features)
        acc = torch.matmul(x_q, self.weight_q.t()) + self.bias_q
        out = (acc * self.multiplier) >> self.shift
        return torch.clamp(out, -128, 127)


def make_model():
    return IntegerLinearRequant()


def example_inputs():
    return (torch.randint(-128, 128, (2, 5, 16)),)


def other_inputs():
    return [(torch.randint(-128, 128, (3, 7, 16)),), (torch.randint(-128, 128, (1, 2, 16)),)]


def probe_inputs():
    return other_inputs()
