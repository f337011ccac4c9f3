"""Super-resolution head of an integer-quantized model: the conv output is quantized to integer codes, the
codes are rearranged with `F.pixel_shuffle` (ONNX DepthToSpace) and only then dequantized. The report asks
onnxruntime for integer DepthToSpace/SpaceToDepth kernels ("Running quantized models"): its CPU kernels
only cover float types, so the exported integer DepthToSpace fails with "NOT_IMPLEMENTED : Could not find
an implementation for DepthToSpace(13)" (int8/uint8 have since been added; int32 codes still fail).

Source: https://github.com/microsoft/onnxruntime/issues/21287
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-43"


class QuantizedSRTail(nn.Module):
    def __init__(self, channels=16, out_channels=3, upscale=2, scale=1.0 / 64):
        super().__init__()
        self.conv = nn.Conv2d(channels, out_channels * upscale * upscale, 3, padding=1)
        self.upscale = upscale
        self.scale = scale

    def forward(self, x):
        y = self.conv(x)
        # integer codes (int32 accumulator domain of the quantized graph)
        q = torch.clamp(torch.round(y / self.scale), -32768, 32767).to(torch.int32)
        q = F.pixel_shuffle(q, self.upscale)
        return q.to(torch.float32) * self.scale


def make_model():
    return QuantizedSRTail().eval()


def example_inputs():
    return (torch.randn(1, 16, 12, 12),)


def other_inputs():
    return [(torch.randn(2, 16, 20, 15),), (torch.randn(3, 16, 7, 9),)]


def probe_inputs():
    return other_inputs()
