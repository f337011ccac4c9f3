"""PySOT SiamRPN++ tracker head (AlexNetLegacy + DepthwiseRPN): the user traced the tracker with torch.jit.trace and
converted it with pnnx (template feature [1,256,6,6], search image [1,3,287,287]) and the conversion broke inside
`DepthwiseXCorr` / `xcorr_depthwise`, which reshapes the search feature to `x.view(1, batch*channel, ...)` and runs
`F.conv2d(x, kernel, groups=batch*channel)` with `batch = kernel.size(0)` taken from the template feature.
(Reduced channels: in 32, hidden 32, anchor_num 5.)

Source: https://github.com/Tencent/ncnn/issues/3747
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"z_f": {0: "batch"}, "x_f": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-54"


def xcorr_depthwise(x, kernel):
    """depthwise cross correlation
    """
    batch = kernel.size(0)
    channel = kernel.size(1)
    x = x.view(1, batch*channel, x.size(2), x.size(3))
    kernel = kernel.view(batch*channel, 1, kernel.size(2), kernel.size(3))
    out = F.conv2d(x, kernel, groups=batch*channel)
    out = out.view(batch, channel, out.size(2), out.size(3))
    return out


class DepthwiseXCorr(nn.Module):
    def __init__(self, in_channels, hidden, out_channels, kernel_size=3, hidden_kernel_size=5):
        super(DepthwiseXCorr, self).__init__()
        self.conv_kernel = nn.Sequential(
                nn.Conv2d(in_channels, hidden, kernel_size=kernel_size, bias=False),
                nn.BatchNorm2d(hidden),
                nn.ReLU(inplace=True),
                )
        self.conv_search = nn.Sequential(
                nn.Conv2d(in_channels, hidden, kernel_size=kernel_size, bias=False),
                nn.BatchNorm2d(hidden),
                nn.ReLU(inplace=True),
                )
        self.head = nn.Sequential(
                nn.Conv2d(hidden, hidden, kernel_size=1, bias=False),
                nn.BatchNorm2d(hidden),
                nn.ReLU(inplace=True),
                nn.Conv2d(hidden, out_channels, kernel_size=1)
                )

    def forward(self, kernel, search):
        kernel = self.conv_kernel(kernel)
        search = self.conv_search(search)
        feature = xcorr_depthwise(search, kernel)
        out = self.head(feature)
        return out


class DepthwiseRPN(nn.Module):
    def __init__(self, anchor_num=5, in_channels=32, out_channels=32):
        super(DepthwiseRPN, self).__init__()
        self.cls = DepthwiseXCorr(in_channels, out_channels, 2 * anchor_num)
        self.loc = DepthwiseXCorr(in_channels, out_channels, 4 * anchor_num)

    def forward(self, z_f, x_f):
        cls = self.cls(z_f, x_f)
        loc = self.loc(z_f, x_f)
        return cls, loc


def make_model():
    return DepthwiseRPN().eval()


def example_inputs():
    return (torch.randn(2, 32, 6, 6), torch.randn(2, 32, 22, 22))


def other_inputs():
    return [(torch.randn(3, 32, 6, 6), torch.randn(3, 32, 26, 30)),
            (torch.randn(1, 32, 6, 6), torch.randn(1, 32, 18, 20))]


def probe_inputs():
    return other_inputs()
