"""An OpenFace-style (nn4.small2) face-embedding CNN whose stem has two `nn.CrossMapLRN2d` layers (after the first
max-pool and after the 3x3 conv); the report says exporting the .pth to ONNX fails with "RuntimeError: ONNX export
failed: Couldn't export Python operator CrossMapLRN2d".

Source: https://github.com/onnx/tutorials/issues/239
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-17"


class FaceNetStem(nn.Module):
    def __init__(self, embedding_size=32):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, kernel_size=7, stride=2, padding=3)
        self.bn1 = nn.BatchNorm2d(16)
        self.relu = nn.ReLU()
        self.pool1 = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.lrn1 = nn.CrossMapLRN2d(5, 0.0001, 0.75)
        self.conv2 = nn.Conv2d(16, 16, kernel_size=1)
        self.bn2 = nn.BatchNorm2d(16)
        self.conv3 = nn.Conv2d(16, 48, kernel_size=3, padding=1)
        self.bn3 = nn.BatchNorm2d(48)
        self.lrn2 = nn.CrossMapLRN2d(5, 0.0001, 0.75)
        self.pool2 = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(48, embedding_size)

    def forward(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.lrn1(self.pool1(x))
        x = self.relu(self.bn2(self.conv2(x)))
        x = self.relu(self.bn3(self.conv3(x)))
        x = self.pool2(self.lrn2(x))
        x = torch.flatten(self.avgpool(x), 1)
        x = self.fc(x)
        return nn.functional.normalize(x, p=2, dim=1)


def make_model():
    return FaceNetStem().eval()


def example_inputs():
    return (torch.randn(2, 3, 96, 96),)


def other_inputs():
    return [(torch.randn(3, 3, 80, 112),), (torch.randn(1, 3, 64, 72),)]


def probe_inputs():
    return other_inputs()
