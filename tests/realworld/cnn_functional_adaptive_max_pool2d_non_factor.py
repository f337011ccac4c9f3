"""A small CNN classifier pools its feature map with `F.adaptive_max_pool2d` to a fixed grid before
the classifier; the report says torch.onnx.export fails with "Couldn't export operator
aten::adaptive_max_pool2d" and, with ONNX_ATEN_FALLBACK, warns "ONNX export failed on
adaptive_max_pool2d because output size that are not factor of input size not supported".

Source: https://github.com/onnx/tutorials/issues/204
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-14"


class Net(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, stride=2, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.bn2 = nn.BatchNorm2d(32)
        self.fc = nn.Linear(32 * 3 * 3, num_classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        x = F.adaptive_max_pool2d(x, (3, 3))
        x = x.view(x.size(0), -1)
        return self.fc(x)


def make_model():
    return Net().eval()


def example_inputs():
    return (torch.randn(2, 3, 40, 56),)


def other_inputs():
    return [(torch.randn(3, 3, 64, 44),), (torch.randn(1, 3, 28, 36),)]


def probe_inputs():
    return other_inputs()
