"""A CNN classifier with a fixed-size `nn.AdaptiveAvgPool2d` head (VGG-style 7x7 pooling before the
classifier); when the feature map is not a multiple of the pooled size the export fails with
"Unsupported: ONNX export of operator adaptive_avg_pool2d, since output size is not factor of input size".

Source: https://github.com/pytorch/pytorch/issues/67611
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-17"


class Net(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2),
        )
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(
            nn.Linear(32 * 7 * 7, 64), nn.ReLU(inplace=True), nn.Dropout(), nn.Linear(64, num_classes),
        )

    def forward(self, x):
        x = self.features(x)
        x = self.avgpool(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


def make_model():
    return Net().eval()


def example_inputs():
    return (torch.randn(2, 3, 40, 40),)


def other_inputs():
    return [(torch.randn(3, 3, 40, 40),), (torch.randn(1, 3, 40, 40),)]


def probe_inputs():
    return other_inputs()
