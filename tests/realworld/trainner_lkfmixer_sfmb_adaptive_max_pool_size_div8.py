"""LKFMixer (lightweight super-resolution arch in traiNNer-redux): the Spatial Feature Modulation Block pools
`F.adaptive_max_pool2d(x, (x.size(2) // 8, x.size(3) // 8))`, an output size computed from the input size, and
resizes back with `F.interpolate(size=(x.size(2), x.size(3)))`; the arch did not convert to ONNX until "@umzi2 fixes
to lkfmixer for onnx support" replaced it by `F.max_pool2d(kernel_size=8, stride=8)` (and padded the input to a
multiple of 8). (One FMB block with a short kernel; weights random.)

Source: https://github.com/the-database/traiNNer-redux/commit/52d4be7c66e74cd8478efe786a0905c554c6ddfe
"""
import torch
import torch.nn.functional as F  # noqa: N812
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"input": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-52"


class PLKB(nn.Module):
    """
    Partial Large Kernel Block (PLKB)
    """

    def __init__(self, channels, large_kernel, split_factor) -> None:
        super().__init__()
        self.channels = channels
        self.split_channels = int(channels * split_factor)
        self.DWConv_Kx1 = nn.Conv2d(self.split_channels, self.split_channels, kernel_size=(large_kernel, 1),
                                    stride=1, padding=(large_kernel // 2, 0), groups=self.split_channels)
        self.DWConv_1xK = nn.Conv2d(self.split_channels, self.split_channels, kernel_size=(1, large_kernel),
                                    stride=1, padding=(0, large_kernel // 2), groups=self.split_channels)
        self.conv1 = nn.Conv2d(channels, channels, 1, 1, 0)
        self.act = nn.GELU()

    def forward(self, x):
        x1, x2 = torch.split(x, (self.split_channels, self.channels - self.split_channels), dim=1)
        x1 = self.DWConv_Kx1(self.DWConv_1xK(x1))
        out = torch.cat((x1, x2), dim=1)
        out = self.act(self.conv1(out))
        return out


class SFMB(nn.Module):
    """
    Spatial Feature Modulation Block (SFMB)
    """

    def __init__(self, channels, large_kernel, split_factor) -> None:
        super().__init__()
        self.PLKB = PLKB(channels, large_kernel, split_factor)
        self.DWConv_3 = nn.Conv2d(channels, channels, kernel_size=3, stride=1, padding=1, groups=channels)
        self.AdaptiveAvgPool = nn.AdaptiveAvgPool2d((1, 1))
        self.conv1_1 = nn.Conv2d(in_channels=channels, out_channels=channels, kernel_size=1, stride=1, padding=0)
        self.conv1_2 = nn.Conv2d(in_channels=channels, out_channels=channels, kernel_size=1, stride=1, padding=0)
        self.sigmoid = nn.Sigmoid()
        self.act = nn.GELU()

    def forward(self, x):
        x1 = self.PLKB(x)

        x2_1 = self.sigmoid(self.AdaptiveAvgPool(x))
        x2_2 = F.adaptive_max_pool2d(x, (x.size(2) // 8, x.size(3) // 8))
        x2_2 = self.act(self.conv1_1(self.DWConv_3(x2_2)))
        x2_2 = F.interpolate(x2_2, size=(x.size(2), x.size(3)), mode="bilinear", align_corners=False)
        x2 = x2_1 * x2_2

        out = self.act(self.conv1_2(x1 + x2))
        return out


class FSB(nn.Module):
    """
    Feature Selective Block (FSB)
    """

    def __init__(self, channels, large_kernel, split_factor) -> None:
        super().__init__()
        self.PLKB = PLKB(channels, large_kernel, split_factor)
        self.DWConv_3 = nn.Conv2d(channels, channels, kernel_size=3, stride=1, padding=1, groups=channels)
        self.conv1_1 = nn.Conv2d(in_channels=channels * 2, out_channels=channels, kernel_size=1, stride=1, padding=0)
        self.sigmoid = nn.Sigmoid()
        self.act = nn.GELU()

    def forward(self, x):
        x1 = self.PLKB(x)
        x2 = self.DWConv_3(x)
        x_fused = self.act(self.conv1_1(torch.cat((x1, x2), dim=1)))
        weight = self.sigmoid(x_fused)
        out = x1 * weight + x2 * (1 - weight)
        return out


class FMB(nn.Module):
    """
    Feature Modulation Block (FMB) (the Feature Distillation Block is left out)
    """

    def __init__(self, channels, large_kernel, split_factor) -> None:
        super().__init__()
        self.SFMB = SFMB(channels, large_kernel, split_factor)
        self.FSB = FSB(channels, large_kernel, split_factor)

    def forward(self, input):
        out = self.SFMB(input)
        out = self.FSB(out)
        out = out + input
        return out


class LKFMixer(nn.Module):
    def __init__(self, in_channels=3, channels=16, out_channels=3, upscale=2, num_block=1, large_kernel=7,
                 split_factor=0.25) -> None:
        super().__init__()
        self.conv_first = nn.Conv2d(in_channels, channels, kernel_size=3, stride=1, padding=1)
        self.layers = nn.Sequential(*[FMB(channels, large_kernel, split_factor) for _ in range(num_block)])
        self.conv = nn.Conv2d(channels, channels, kernel_size=3, stride=1, padding=1, groups=channels)
        self.upsampler = nn.Sequential(nn.Conv2d(channels, (upscale**2) * out_channels, 3, 1, 1),
                                       nn.PixelShuffle(upscale))
        self.act = nn.GELU()

    def forward(self, input):
        out_fea = self.conv_first(input)
        out = self.layers(out_fea)
        out = self.act(self.conv(out))
        output = self.upsampler(out + out_fea)
        return output


def make_model():
    return LKFMixer().eval()


def example_inputs():
    return (torch.rand(1, 3, 32, 40),)


def other_inputs():
    return [(torch.rand(2, 3, 48, 24),), (torch.rand(1, 3, 37, 45),)]


def probe_inputs():
    return other_inputs()
