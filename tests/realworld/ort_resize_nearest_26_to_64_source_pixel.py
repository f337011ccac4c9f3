"""A 1-D nearest-neighbour resize of a width-26 feature row to width 64
(`torch.nn.functional.interpolate(x, size=(1, 64), mode="nearest")` on an N x C x 1 x 26 tensor):
onnxruntime's CPU Resize selects a different source pixel than PyTorch around the middle of the
output (the report lists output[30:35] differing between ORT and torch), so the converted model's
outputs change.

Source: https://github.com/microsoft/onnxruntime/issues/28310
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 3: "width"}}
BLIND = "operators-16"


class RowResizeHead(nn.Module):
    def __init__(self, channels=4, out_width=64):
        super().__init__()
        self.pre = nn.Conv2d(channels, channels, kernel_size=(1, 3), padding=(0, 1))
        self.out_width = out_width
        self.post = nn.Conv2d(channels, channels, kernel_size=1)

    def forward(self, x):
        x = self.pre(x)
        x = torch.nn.functional.interpolate(x, size=(1, self.out_width), mode="nearest")
        return self.post(x)


def make_model():
    return RowResizeHead().eval()


def example_inputs():
    return (torch.randn(1, 4, 1, 26),)


def other_inputs():
    return [(torch.randn(2, 4, 1, 26),), (torch.randn(3, 4, 1, 45),)]


def probe_inputs():
    return other_inputs()
