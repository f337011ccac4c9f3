"""Text-detection FPN whose top-down merge reads the lateral size with
`_, _, H, W = map(int, y.size())` before upsampling; exported with dynamic height/width, onnxruntime
fails on other image sizes in the Add ("Attempting to broadcast an axis by a dimension other than 1. 40 by 44").

Source: https://github.com/onnx/onnx/issues/4345
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "scalars"
DYNAMIC = {"x": {2: "height", 3: "width"}}
BLIND = "domains-16"


def conv_bn_relu(cin, cout, stride):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class FPN(nn.Module):
    def __init__(self, out_channels=8):
        super(FPN, self).__init__()
        self.layer1 = conv_bn_relu(3, 8, 2)
        self.layer2 = conv_bn_relu(8, 16, 2)
        self.layer3 = conv_bn_relu(16, 32, 2)
        self.layer4 = conv_bn_relu(32, 64, 2)
        self.toplayer = nn.Conv2d(64, out_channels, 1)
        self.latlayer1 = nn.Conv2d(32, out_channels, 1)
        self.latlayer2 = nn.Conv2d(16, out_channels, 1)
        self.latlayer3 = nn.Conv2d(8, out_channels, 1)
        self.out_conv = nn.Conv2d(out_channels, 1, 3, 1, 1)

    def _upsample_add(self, x, y):
        _, _, H, W = map(int, y.size())
        return F.interpolate(x, size=(H, W), mode='bilinear', align_corners=False) + y

    def forward(self, x):
        c2 = self.layer1(x)
        c3 = self.layer2(c2)
        c4 = self.layer3(c3)
        c5 = self.layer4(c4)
        p5 = self.toplayer(c5)
        p4 = self._upsample_add(p5, self.latlayer1(c4))
        p3 = self._upsample_add(p4, self.latlayer2(c3))
        p2 = self._upsample_add(p3, self.latlayer3(c2))
        return torch.sigmoid(self.out_conv(p2))


def make_model():
    return FPN()


def example_inputs():
    return (torch.randn(1, 3, 160, 160),)


def other_inputs():
    return [(torch.randn(1, 3, 176, 128),), (torch.randn(1, 3, 100, 212),)]


def probe_inputs():
    return other_inputs()
