"""Image encoder stem that shrinks its input to a fixed working size with `F.interpolate(..., mode="bilinear",
antialias=True, align_corners=True)` before a conv. The torchlib PR that made antialiased upsample match eager
(exclude_outside=1 on ONNX Resize) still records the variant as failing: "align_corners=True diverges between
PyTorch AA kernel and ONNX Resize antialias" (xfail), so the dynamo export runs but gives different pixels; the
TorchScript exporter has no symbolic for `aten::_upsample_bilinear2d_aa` at all.

Source: https://github.com/microsoft/onnxscript/pull/2916
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-44"


class AntialiasedStem(nn.Module):
    def __init__(self, size=(24, 32), channels=8):
        super().__init__()
        self.size = size
        self.conv = nn.Conv2d(3, channels, 3, padding=1)

    def forward(self, x):
        x = F.interpolate(x, size=self.size, mode="bilinear", antialias=True, align_corners=True)
        return self.conv(x)


def make_model():
    return AntialiasedStem().eval()


def example_inputs():
    return (torch.rand(2, 3, 61, 83),)


def other_inputs():
    return [(torch.rand(3, 3, 97, 120),), (torch.rand(1, 3, 50, 70),)]


def probe_inputs():
    return other_inputs()
