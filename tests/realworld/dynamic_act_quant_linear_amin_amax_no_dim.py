"""Per-tensor dynamic activation quantization in front of a linear layer (W8A8-style LLM layer):
the observer takes the tensor-wide range with `torch.amin(x)` / `torch.amax(x)` and no `dim`; the
report: "`torch.amax(x)` and `torch.amin(x)` don't export" with dynamo=True ("ValueError: Required
parameter 'dim' is not provided" in aten_amax/aten_amin), while `torch.amax(x, keepdim=True)` works.

Source: https://github.com/microsoft/onnxscript/pull/3035
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "seq_len"}}
BLIND = "operators-20"


class DynamicActQuantLinear(nn.Module):
    """Linear layer whose input activations are fake-quantized to uint8 with a per-tensor range."""

    def __init__(self, in_features=64, out_features=48, n_levels=256):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(out_features, in_features) * 0.05)
        self.bias = nn.Parameter(torch.zeros(out_features))
        self.n_levels = n_levels

    def forward(self, x):
        x_min = torch.amin(x)
        x_max = torch.amax(x)
        scale = (x_max - x_min).clamp(min=1e-8) / (self.n_levels - 1)
        zero_point = torch.round(-x_min / scale)
        q = torch.clamp(torch.round(x / scale) + zero_point, 0, self.n_levels - 1)
        x_dq = (q - zero_point) * scale
        return F.linear(x_dq, self.weight, self.bias)


class QuantMLPBlock(nn.Module):
    def __init__(self, hidden=64, inter=48):
        super().__init__()
        self.up = DynamicActQuantLinear(hidden, inter)
        self.down = DynamicActQuantLinear(inter, hidden)

    def forward(self, x):
        return x + self.down(F.silu(self.up(x)))


def make_model():
    return QuantMLPBlock().eval()


def example_inputs():
    return (torch.randn(2, 12, 64),)


def other_inputs():
    return [(torch.randn(3, 7, 64) * 2,), (torch.randn(1, 20, 64),)]


def probe_inputs():
    return other_inputs()
