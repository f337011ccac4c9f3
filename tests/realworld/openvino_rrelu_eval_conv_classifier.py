"""A small conv classifier using randomized leaky ReLU (`nn.RReLU`) activations, run in eval mode.
OpenVINO's PyTorch frontend could not convert `aten::rrelu` (issue #23746); its fix PR notes that
torch.export produces `aten.rrelu_with_noise_functional`, which the dynamo ONNX exporter also has no
function for ("No ONNX function found for aten.rrelu_with_noise_functional").

Source: https://github.com/openvinotoolkit/openvino/issues/23746
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-26"


class ConvBlock(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1)
        self.bn = nn.BatchNorm2d(cout)
        self.act = nn.RReLU(lower=0.1, upper=0.3)

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class RReLUNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.block1 = ConvBlock(3, 16)
        self.block2 = ConvBlock(16, 32)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x):
        x = self.block1(x)
        x = self.block2(x)
        x = self.pool(x).flatten(1)
        return self.fc(x)


def make_model():
    return RReLUNet().eval()


def example_inputs():
    return (torch.randn(2, 3, 32, 32),)


def other_inputs():
    return [(torch.randn(3, 3, 40, 24),), (torch.randn(1, 3, 17, 29),)]


def probe_inputs():
    return other_inputs()
