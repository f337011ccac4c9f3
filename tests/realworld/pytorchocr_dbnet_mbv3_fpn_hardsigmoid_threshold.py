"""PytorchOCR DBNet text detector (MobileNetV3 backbone + FPN + DB head): the backbone SE blocks use
`HardSigmoid` written with `F.threshold(-x, -1, -1)` / `F.threshold(-x, 0, 0)`, and exporting the
detector fails with "ONNX export failed: Couldn't export operator aten::threshold".

Source: https://github.com/WenmuZhou/PytorchOCR/issues/71
"""
import torch
from torch import nn
from torch.nn import functional as F

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
        self.act = nn.ReLU() if act == 'relu' else HSwish() if act == 'hard_swish' else None

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


class ConvBnRelu(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, padding=0):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=padding)
        self.bn = nn.BatchNorm2d(out_channels)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        return self.relu(self.bn(self.conv(x)))


class DBNet(nn.Module):
    """DetMobilenetV3 (small, scale 0.5, trimmed) -> FPN -> DB binarize head (eval path)."""

    def __init__(self, fpn_out=64):
        super().__init__()
        self.conv1 = ConvBNACT(3, 8, kernel_size=3, stride=2, padding=1, act='hard_swish')
        chans = [8, 16, 24, 48, 96]
        self.stages = nn.ModuleList([
            ResidualUnit(chans[i], chans[i + 1] * 2, chans[i + 1], stride=2, kernel_size=3 if i < 2 else 5,
                         act='relu' if i < 1 else 'hard_swish', use_se=True)
            for i in range(4)
        ])
        out = fpn_out // 4
        self.reduce = nn.ModuleList([ConvBnRelu(c, out, 1) for c in chans[1:]])
        self.smooth = nn.ModuleList([ConvBnRelu(out, out, 3, padding=1) for _ in range(3)])
        self.conv = ConvBnRelu(fpn_out, fpn_out, 3, padding=1)
        self.binarize = nn.Sequential(
            nn.Conv2d(fpn_out, fpn_out // 4, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(fpn_out // 4), nn.ReLU(inplace=True),
            nn.ConvTranspose2d(fpn_out // 4, fpn_out // 4, kernel_size=2, stride=2),
            nn.BatchNorm2d(fpn_out // 4), nn.ReLU(inplace=True),
            nn.ConvTranspose2d(fpn_out // 4, 1, kernel_size=2, stride=2),
            nn.Sigmoid(),
        )

    def _upsample_add(self, x, y):
        return F.interpolate(x, size=y.size()[2:]) + y

    def forward(self, x):
        x = self.conv1(x)
        feats = []
        for stage in self.stages:
            x = stage(x)
            feats.append(x)
        c2, c3, c4, c5 = [r(f) for r, f in zip(self.reduce, feats)]
        p4 = self.smooth[0](self._upsample_add(c5, c4))
        p3 = self.smooth[1](self._upsample_add(p4, c3))
        p2 = self.smooth[2](self._upsample_add(p3, c2))
        h, w = p2.size()[2:]
        x = torch.cat([p2, F.interpolate(p3, size=(h, w)), F.interpolate(p4, size=(h, w)),
                       F.interpolate(c5, size=(h, w))], dim=1)
        x = self.conv(x)
        return self.binarize(x)


def make_model():
    return DBNet().eval()


def example_inputs():
    return (torch.randn(1, 3, 128, 96),)


def other_inputs():
    return [(torch.randn(2, 3, 96, 160),), (torch.randn(3, 3, 64, 64),)]


def probe_inputs():
    return other_inputs()
