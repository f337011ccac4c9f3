"""A CNN backbone (being prepared for quantization) uses `nn.AvgPool2d(kernel_size=5, stride=2, padding=1,
divisor_override=3)`; the report says torch.onnx.export fails with "Unsupported: ONNX export of operator
avg_pool2d, divisor_override" (export works with divisor_override=None).

Source: https://github.com/pytorch/pytorch/issues/105349
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-5"


class AvgPool2dModel(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU())
        # export works fine if divisor_override=None, but fails when divisor_override is integer value
        self.pool = torch.nn.AvgPool2d(kernel_size=5, stride=2, padding=1, divisor_override=3)
        self.conv = nn.Sequential(nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU())
        self.head = nn.Conv2d(32, num_classes, 1)

    def forward(self, x):
        x = self.stem(x)
        x = self.pool(x)
        x = self.conv(x)
        return self.head(x)


def make_model():
    return AvgPool2dModel().eval()


def example_inputs():
    return (torch.randn(1, 3, 8, 8),)


def other_inputs():
    return [(torch.randn(2, 3, 20, 14),), (torch.randn(3, 3, 11, 27),)]


def probe_inputs():
    return other_inputs()
