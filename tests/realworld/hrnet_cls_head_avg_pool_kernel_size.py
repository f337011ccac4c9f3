"""HRNet image classification head: `F.avg_pool2d(y, kernel_size=y.size()[2:]).view(y.size(0), -1)`;
ONNX has no average pool with a dynamic kernel, so the kernel becomes the export-time feature size.

Source: https://github.com/HRNet/HRNet-Image-Classification/pull/13
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-7"

BN_MOMENTUM = 0.1


class HighResolutionNetHead(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, kernel_size=3, stride=2, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(16, momentum=BN_MOMENTUM)
        self.conv2 = nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(16, momentum=BN_MOMENTUM)
        self.relu = nn.ReLU(inplace=True)
        self.final_layer = nn.Sequential(
            nn.Conv2d(16, 32, kernel_size=1, stride=1, padding=0),
            nn.BatchNorm2d(32, momentum=BN_MOMENTUM),
            nn.ReLU(inplace=True),
        )
        self.classifier = nn.Linear(32, num_classes)

    def forward(self, x):
        x = self.conv1(x)
        x = self.bn1(x)
        x = self.relu(x)
        x = self.conv2(x)
        x = self.bn2(x)
        y = self.relu(x)

        y = self.final_layer(y)

        y = F.avg_pool2d(y, kernel_size=y.size()
                             [2:]).view(y.size(0), -1)

        y = self.classifier(y)

        return y


def make_model():
    return HighResolutionNetHead().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(3, 3, 96, 48),), (torch.randn(1, 3, 32, 80),)]


def probe_inputs():
    return other_inputs()
