"""DBNet.pytorch text detector with the MobileNetV3 backbone: the SE block's `HardSigmoid` clips with
`F.threshold(-x, -1, -1)` / `F.threshold(-x, 0, 0)`; ONNX export fails with "ONNX export failed on
threshold because non-zero threshold not supported" (aten::threshold).

Source: https://github.com/WenmuZhou/DBNet.pytorch/issues/98
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-6"


class HSwish(nn.Module):
    def forward(self, x):
        out = x * F.relu6(x + 3, inplace=True) / 6
        return out


class HardSigmoid(nn.Module):
    def __init__(self, slope=.2, offset=.5):
        super().__init__()
        self.slope = slope
        self.offset = offset

    def forward(self, x):
        x = (self.slope * x) + self.offset
        x = F.threshold(-x, -1, -1)
        x = F.threshold(-x, 0, 0)
        return x


class ConvBNACT(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, groups=1, act=None):
        super().__init__()
        self.conv = nn.Conv2d(in_channels=in_channels, out_channels=out_channels, kernel_size=kernel_size,
                              stride=stride, padding=padding, groups=groups, bias=False)
        self.bn = nn.BatchNorm2d(out_channels)
        if act == 'relu':
            self.act = nn.ReLU()
        elif act == 'hard_swish':
            self.act = HSwish()
        elif act is None:
            self.act = None

    def forward(self, x):
        x = self.conv(x)
        x = self.bn(x)
        if self.act is not None:
            x = self.act(x)
        return x


class SEBlock(nn.Module):
    def __init__(self, in_channels, out_channels, ratio=4):
        super().__init__()
        num_mid_filter = out_channels // ratio
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.conv1 = nn.Conv2d(in_channels=in_channels, out_channels=num_mid_filter, kernel_size=1, bias=True)
        self.relu1 = nn.ReLU()
        self.conv2 = nn.Conv2d(in_channels=num_mid_filter, kernel_size=1, out_channels=out_channels, bias=True)
        self.relu2 = HardSigmoid()

    def forward(self, x):
        attn = self.pool(x)
        attn = self.conv1(attn)
        attn = self.relu1(attn)
        attn = self.conv2(attn)
        attn = self.relu2(attn)
        return x * attn


class ResidualUnit(nn.Module):
    def __init__(self, num_in_filter, num_mid_filter, num_out_filter, stride, kernel_size, act=None, use_se=False):
        super().__init__()
        self.conv0 = ConvBNACT(num_in_filter, num_mid_filter, kernel_size=1, act=act)
        self.conv1 = ConvBNACT(num_mid_filter, num_mid_filter, kernel_size=kernel_size, stride=stride,
                               padding=int((kernel_size - 1) // 2), act=act, groups=num_mid_filter)
        self.se = SEBlock(num_mid_filter, num_mid_filter) if use_se else None
        self.conv2 = ConvBNACT(num_mid_filter, num_out_filter, kernel_size=1)
        self.not_add = num_in_filter != num_out_filter or stride != 1

    def forward(self, x):
        y = self.conv0(x)
        y = self.conv1(y)
        if self.se is not None:
            y = self.se(y)
        y = self.conv2(y)
        if not self.not_add:
            y = x + y
        return y


class MobileNetV3Small(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = ConvBNACT(3, 8, kernel_size=3, stride=2, padding=1, act='hard_swish')
        self.stages = nn.Sequential(
            ResidualUnit(8, 8, 8, stride=2, kernel_size=3, act='relu', use_se=True),
            ResidualUnit(8, 40, 16, stride=2, kernel_size=5, act='hard_swish', use_se=True),
            ResidualUnit(16, 64, 16, stride=1, kernel_size=5, act='hard_swish', use_se=True),
        )

    def forward(self, x):
        x = self.conv1(x)
        return self.stages(x)


def make_model():
    return MobileNetV3Small().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 96),)


def other_inputs():
    return [(torch.randn(3, 3, 96, 64),), (torch.randn(1, 3, 80, 112),)]


def probe_inputs():
    return other_inputs()
