"""OTX's tile-optimized Mask R-CNN adds a small AlexNet-like TileClassifier whose features end in
`torch.nn.AdaptiveAvgPool2d((6, 6))` before a flattened Linear(256 * 6 * 6, ...). The PR thread reports that the
adaptive pooling does not export: "Instead of pooling it to 6 x 6, it outputs 7 x 7 in ONNX" (the feature map is
not a multiple of 6), so the exported classifier breaks; the PR swaps it for a fixed AvgPool2d(5, stride=2).

Source: https://github.com/open-edge-platform/geti/pull/2337
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"img": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-11"


class ConvModule(nn.Sequential):
    """The few lines of mmcv's ConvModule used here: conv (bias since no norm) + ReLU."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, act_cfg=dict(type="ReLU")):
        super().__init__(nn.Conv2d(in_channels, out_channels, kernel_size, stride=stride, padding=padding),
                         nn.ReLU(inplace=True))


class TileClassifier(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.features = torch.nn.Sequential(
            ConvModule(3, 64, 11, stride=4, padding=2, act_cfg=dict(type="ReLU")),
            torch.nn.MaxPool2d(kernel_size=3, stride=2),
            ConvModule(64, 192, 5, padding=2, act_cfg=dict(type="ReLU")),
            torch.nn.MaxPool2d(kernel_size=3, stride=2),
            ConvModule(192, 256, 3, padding=1, act_cfg=dict(type="ReLU")),
            torch.nn.MaxPool2d(kernel_size=3, stride=2),
        )
        self.avgpool = torch.nn.AdaptiveAvgPool2d((6, 6))
        self.classifier = torch.nn.Sequential(
            torch.nn.Linear(256 * 6 * 6, 256),
            torch.nn.ReLU(inplace=True),
            torch.nn.Linear(256, 256),
            torch.nn.ReLU(inplace=True),
            torch.nn.Linear(256, 1),
        )

    def forward(self, img):
        x = self.features(img)
        x = self.avgpool(x)
        x = torch.flatten(x, 1)
        y = self.classifier(x)
        return y


def make_model():
    return TileClassifier().eval()


def example_inputs():
    return (torch.randn(1, 3, 448, 448),)      # 13x13 feature map before the 6x6 adaptive pool


def other_inputs():
    return [(torch.randn(2, 3, 512, 384),), (torch.randn(1, 3, 320, 416),)]


def probe_inputs():
    return other_inputs()
