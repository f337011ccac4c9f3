"""A CNN classifier pools its last feature map with `self.avgpool = nn.AdaptiveAvgPool2d((3, 3))` before the
fully connected layer; exporting it to ONNX fails with "Only output_size=[1, 1] is supported" (later exporters:
"output size is not factor of input size" / "input size not accessible" when the image size is dynamic).

Source: https://github.com/pytorch/pytorch/issues/19954
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-23"


class Net(nn.Module):
    def __init__(self, num_classes=8):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU(inplace=True),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU(inplace=True),
            nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
        )
        self.avgpool = nn.AdaptiveAvgPool2d((3, 3))
        self.fc = nn.Linear(64 * 3 * 3, num_classes)

    def forward(self, x):
        x = self.features(x)
        x = self.avgpool(x)
        x = x.view(x.size(0), -1)
        return self.fc(x)


def make_model():
    return Net().eval()


def example_inputs():
    return (torch.randn(1, 3, 112, 112),)


def other_inputs():
    return [(torch.randn(2, 3, 96, 128),), (torch.randn(3, 3, 64, 80),)]


def probe_inputs():
    return other_inputs()
