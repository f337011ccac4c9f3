"""SiamRPN++ (pysot) neck: `AdjustLayer` crops the template feature with `if x.size(3) < 20:` and
`l = (x.size(3) - self.center_size) // 2; x = x[:, :, l:r, l:r]`; the ONNX export warns "Converting a tensor
to a Python index" at the crop line, so the crop decided for the example size is frozen into the graph.

Source: https://github.com/STVIR/pysot/issues/125
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-2"


class AdjustLayer(nn.Module):
    def __init__(self, in_channels, out_channels, center_size=7):
        super(AdjustLayer, self).__init__()
        self.downsample = nn.Sequential(
            nn.Conv2d(in_channels, out_channels, kernel_size=1, bias=False),
            nn.BatchNorm2d(out_channels),
        )
        self.center_size = center_size

    def forward(self, x):
        x = self.downsample(x)
        if x.size(3) < 20:
            l = (x.size(3) - self.center_size) // 2
            r = l + self.center_size
            x = x[:, :, l:r, l:r]
        return x


def make_model():
    return AdjustLayer(8, 4).eval()


def example_inputs():
    # template branch: 15x15 feature map
    return (torch.randn(1, 8, 15, 15),)


def other_inputs():
    # search branch (31x31, no crop) and a slightly larger template
    return [(torch.randn(2, 8, 31, 31),), (torch.randn(3, 8, 17, 17),)]


def probe_inputs():
    return other_inputs()
