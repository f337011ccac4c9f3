"""A float64 (double) chain that upsamples a feature map with Resize and then reduces it with ReduceMean
(the report's model applies Resize to tensor(double), which the ONNX spec allows): the runtime fails to
load it because its Interpolate/Resize implementation only accepts f32, f16, bf16, i8, u8, i64 and i32
inputs, not double.

Source: https://github.com/openvinotoolkit/openvino/issues/33570
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-16"


class FullChain(nn.Module):
    def __init__(self, channels=3):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(1, channels, 1, 1))
        self.shift = nn.Parameter(torch.zeros(1, channels, 1, 1))

    def forward(self, x):
        y = x * self.scale + self.shift
        y = F.interpolate(y, scale_factor=2.0, mode="nearest")     # Resize (double)
        reduce_out = y.mean(dim=(2, 3), keepdim=True)              # ReduceMean (double)
        return y - reduce_out


def make_model():
    return FullChain().double().eval()


def example_inputs():
    return (torch.randn(1, 3, 8, 8, dtype=torch.float64),)


def other_inputs():
    return [(torch.randn(2, 3, 5, 7, dtype=torch.float64),), (torch.randn(3, 3, 12, 4, dtype=torch.float64),)]


def probe_inputs():
    return other_inputs()
