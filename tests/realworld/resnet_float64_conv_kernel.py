"""ResNet-18 classifier converted to float64 (`model.double()`) before `torch.onnx.export`: the export works but
onnxruntime cannot create a session, "NOT_IMPLEMENTED : Failed to find kernel for FusedConv ... implemented only
for tensor(float), but the node has tensor(double)" (Conv has no double CPU kernel).

Source: https://github.com/microsoft/onnxruntime/issues/11476
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-2"


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = downsample

    def forward(self, x):
        identity = x
        out = self.conv1(x)
        out = self.bn1(out)
        out = self.relu(out)
        out = self.conv2(out)
        out = self.bn2(out)
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        out = self.relu(out)
        return out


class ResNetSmall(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = BasicBlock(16, 16)
        self.layer2 = BasicBlock(16, 32, stride=2, downsample=nn.Sequential(
            nn.Conv2d(16, 32, kernel_size=1, stride=2, bias=False), nn.BatchNorm2d(32)))
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer2(self.layer1(x))
        x = torch.flatten(self.avgpool(x), 1)
        return self.fc(x)


def make_model():
    # the reporter runs the whole network in float64
    return ResNetSmall().eval().double()


def example_inputs():
    return (torch.randn(1, 3, 64, 64, dtype=torch.float64),)


def other_inputs():
    return [(torch.randn(2, 3, 96, 80, dtype=torch.float64),), (torch.randn(3, 3, 48, 64, dtype=torch.float64),)]


def probe_inputs():
    return other_inputs()
