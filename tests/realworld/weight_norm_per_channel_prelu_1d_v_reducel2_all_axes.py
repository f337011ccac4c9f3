"""A conv block that weight-normalises every layer, including its per-channel PReLU (`weight_norm` on a
module whose weight is 1-D, default dim=0). The PR reports that the `aten::_weight_norm` export is silently
wrong for a 1-D `v` with dim=0: the "reduce over every dim except dim" axes list is empty and ONNX ReduceL2
then reduces over all dims, so the exported graph uses one scalar norm for the whole vector instead of |v|
per element (max error ~1 vs eager).

Source: https://github.com/pytorch/pytorch/pull/191749
"""
import torch
from torch import nn
from torch.nn.utils import weight_norm

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "time"}}
BLIND = "operators-59"


class WNConvPReLUBlock(nn.Module):
    def __init__(self, channels=16, kernel_size=3):
        super().__init__()
        self.conv = weight_norm(nn.Conv1d(channels, channels, kernel_size, padding=kernel_size // 2))
        self.act = weight_norm(nn.PReLU(channels))     # weight (C,) -> weight_v (C,), weight_g (C,), dim=0
        self.out = weight_norm(nn.Conv1d(channels, channels, 1))

    def forward(self, x):
        return x + self.out(self.act(self.conv(x)))


def make_model():
    m = WNConvPReLUBlock()
    with torch.no_grad():                             # trained per-channel slopes of either sign
        m.act.weight_g.uniform_(0.05, 0.5)
        m.act.weight_v.uniform_(-1.0, 1.0)
    return m.eval()


def example_inputs():
    return (torch.randn(2, 16, 50),)


def other_inputs():
    return [(torch.randn(3, 16, 80),), (torch.randn(1, 16, 17),)]


def probe_inputs():
    return other_inputs()
