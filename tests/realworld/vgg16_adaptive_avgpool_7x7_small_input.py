"""VGG16 classifier head: `nn.AdaptiveAvgPool2d(output_size=(7, 7))` feeds the 512*7*7 fully-connected
classifier; on inputs whose last feature map is not a multiple of 7 (the report's 12x12 case) the export
fails with "Unsupported: ONNX export of operator adaptive_avg_pool2d, since output size is not factor of
input size".

Source: https://github.com/pytorch/pytorch/issues/109370
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-6"


class VGG(nn.Module):
    def __init__(self, cfg=(16, 'M', 32, 'M', 64, 64), num_classes=10):
        super().__init__()
        layers, in_channels = [], 3
        for v in cfg:
            if v == 'M':
                layers += [nn.MaxPool2d(kernel_size=2, stride=2)]
            else:
                layers += [nn.Conv2d(in_channels, v, kernel_size=3, padding=1), nn.ReLU(inplace=True)]
                in_channels = v
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(output_size=(7, 7))
        self.classifier = nn.Sequential(
            nn.Linear(in_channels * 7 * 7, 128), nn.ReLU(True), nn.Dropout(),
            nn.Linear(128, num_classes))

    def forward(self, x):
        x = self.features(x)
        out = self.avgpool(x)
        out = torch.flatten(out, 1)
        return self.classifier(out)


def make_model():
    return VGG().eval()


def example_inputs():
    return (torch.randn(1, 3, 48, 48),)   # 12x12 before the adaptive pool, as in the report


def other_inputs():
    return [(torch.randn(2, 3, 64, 40),), (torch.randn(3, 3, 36, 52),)]


def probe_inputs():
    return other_inputs()
