"""ShuffleNet-style unit built with `torch.nn.ChannelShuffle(groups)`: `aten::channel_shuffle` is not a core
ATen op and torch.export keeps it undecomposed ("aten::channel_shuffle is not a core aten op and has no
decomposition"), so exporters have to handle the raw op.

Source: https://github.com/pytorch/pytorch/issues/133057
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-4"


class ShuffleUnit(nn.Module):
    """ShuffleNet v1 unit (stride 1): grouped 1x1 -> channel shuffle -> depthwise 3x3 -> grouped 1x1 + residual."""

    def __init__(self, channels=48, groups=3):
        super().__init__()
        mid = channels // 4
        self.gconv1 = nn.Sequential(nn.Conv2d(channels, mid, 1, groups=groups, bias=False),
                                    nn.BatchNorm2d(mid), nn.ReLU(inplace=True))
        self.channel_shuffle = nn.ChannelShuffle(groups)
        self.dwconv = nn.Sequential(nn.Conv2d(mid, mid, 3, padding=1, groups=mid, bias=False), nn.BatchNorm2d(mid))
        self.gconv2 = nn.Sequential(nn.Conv2d(mid, channels, 1, groups=groups, bias=False), nn.BatchNorm2d(channels))

    def forward(self, x):
        out = self.gconv1(x)
        out = self.channel_shuffle(out)
        out = self.dwconv(out)
        out = self.gconv2(out)
        return torch.relu(out + x)


class TinyShuffleNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 48, 3, 2, 1, bias=False), nn.BatchNorm2d(48), nn.ReLU(inplace=True))
        self.stage = nn.Sequential(ShuffleUnit(), ShuffleUnit())
        self.head = nn.Linear(48, num_classes)

    def forward(self, x):
        x = self.stage(self.stem(x))
        return self.head(x.mean((2, 3)))


def make_model():
    return TinyShuffleNet().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(3, 3, 48, 80),), (torch.randn(1, 3, 33, 45),)]


def probe_inputs():
    return other_inputs()
