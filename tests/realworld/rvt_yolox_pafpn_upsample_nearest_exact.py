"""RVT (event-camera detection) YOLOX PAFPN: the top-down path upsamples with
`self.upsample = lambda x: nn.functional.interpolate(x, scale_factor=2, mode='nearest-exact')`.
SuperEvent, which reuses this PAFPN, had to switch it to mode='nearest' with the comment
"'nearest-exact' not supported by ONNX, results are the same with 'nearest'"; this is the RVT code before
that change (YOLOX BaseConv/CSPLayer blocks copied in, small channel counts).

Source: https://github.com/ethz-mrl/SuperEvent/blob/main/models/backbones/maxvit_backbone/yolo_pafpn.py
"""
from typing import Dict, Optional, Tuple

import torch as th
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x2": {0: "batch"}, "x1": {0: "batch"}, "x0": {0: "batch"}}
BLIND = "operators-35"


# --- YOLOX network blocks (yolox/models/network_blocks.py) ---
class BaseConv(nn.Module):
    def __init__(self, in_channels, out_channels, ksize, stride, groups=1, bias=False, act="silu"):
        super().__init__()
        pad = (ksize - 1) // 2
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=ksize, stride=stride,
                              padding=pad, groups=groups, bias=bias)
        self.bn = nn.BatchNorm2d(out_channels)
        self.act = nn.SiLU(inplace=True)

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class DWConv(nn.Module):
    def __init__(self, in_channels, out_channels, ksize, stride=1, act="silu"):
        super().__init__()
        self.dconv = BaseConv(in_channels, in_channels, ksize=ksize, stride=stride, groups=in_channels, act=act)
        self.pconv = BaseConv(in_channels, out_channels, ksize=1, stride=1, groups=1, act=act)

    def forward(self, x):
        return self.pconv(self.dconv(x))


class Bottleneck(nn.Module):
    def __init__(self, in_channels, out_channels, shortcut=True, expansion=0.5, depthwise=False, act="silu"):
        super().__init__()
        hidden_channels = int(out_channels * expansion)
        Conv = DWConv if depthwise else BaseConv
        self.conv1 = BaseConv(in_channels, hidden_channels, 1, stride=1, act=act)
        self.conv2 = Conv(hidden_channels, out_channels, 3, stride=1, act=act)
        self.use_add = shortcut and in_channels == out_channels

    def forward(self, x):
        y = self.conv2(self.conv1(x))
        if self.use_add:
            y = y + x
        return y


class CSPLayer(nn.Module):
    def __init__(self, in_channels, out_channels, n=1, shortcut=True, expansion=0.5, depthwise=False, act="silu"):
        super().__init__()
        hidden_channels = int(out_channels * expansion)
        self.conv1 = BaseConv(in_channels, hidden_channels, 1, stride=1, act=act)
        self.conv2 = BaseConv(in_channels, hidden_channels, 1, stride=1, act=act)
        self.conv3 = BaseConv(2 * hidden_channels, out_channels, 1, stride=1, act=act)
        self.m = nn.Sequential(*[Bottleneck(hidden_channels, hidden_channels, shortcut, 1.0, depthwise, act=act)
                                 for _ in range(n)])

    def forward(self, x):
        x_1 = self.m(self.conv1(x))
        x_2 = self.conv2(x)
        return self.conv3(th.cat((x_1, x_2), dim=1))


# --- RVT models/detection/yolox_extension/models/yolo_pafpn.py ---
class YOLOPAFPN(nn.Module):
    def __init__(
            self,
            depth: float = 1.0,
            in_stages: Tuple[int, ...] = (2, 3, 4),
            in_channels: Tuple[int, ...] = (256, 512, 1024),
            depthwise: bool = False,
            act: str = "silu",
            compile_cfg: Optional[Dict] = None,
    ):
        super().__init__()
        assert len(in_stages) == len(in_channels)
        assert len(in_channels) == 3, 'Current implementation only for 3 feature maps'
        self.in_features = in_stages
        self.in_channels = in_channels
        Conv = DWConv if depthwise else BaseConv

        self.upsample = lambda x: nn.functional.interpolate(x, scale_factor=2, mode='nearest-exact')
        self.lateral_conv0 = BaseConv(in_channels[2], in_channels[1], 1, 1, act=act)
        self.C3_p4 = CSPLayer(2 * in_channels[1], in_channels[1], round(3 * depth), False,
                              depthwise=depthwise, act=act)  # cat
        self.reduce_conv1 = BaseConv(in_channels[1], in_channels[0], 1, 1, act=act)
        self.C3_p3 = CSPLayer(2 * in_channels[0], in_channels[0], round(3 * depth), False,
                              depthwise=depthwise, act=act)
        # bottom-up conv
        self.bu_conv2 = Conv(in_channels[0], in_channels[0], 3, 2, act=act)
        self.C3_n3 = CSPLayer(2 * in_channels[0], in_channels[1], round(3 * depth), False,
                              depthwise=depthwise, act=act)
        # bottom-up conv
        self.bu_conv1 = Conv(in_channels[1], in_channels[1], 3, 2, act=act)
        self.C3_n4 = CSPLayer(2 * in_channels[1], in_channels[2], round(3 * depth), False,
                              depthwise=depthwise, act=act)

    def forward(self, input):
        features = [input[f] for f in self.in_features]
        x2, x1, x0 = features

        fpn_out0 = self.lateral_conv0(x0)  # 1024->512/32
        f_out0 = self.upsample(fpn_out0)  # 512/16
        f_out0 = th.cat([f_out0, x1], 1)  # 512->1024/16
        f_out0 = self.C3_p4(f_out0)  # 1024->512/16

        fpn_out1 = self.reduce_conv1(f_out0)  # 512->256/16
        f_out1 = self.upsample(fpn_out1)  # 256/8
        f_out1 = th.cat([f_out1, x2], 1)  # 256->512/8
        pan_out2 = self.C3_p3(f_out1)  # 512->256/8

        p_out1 = self.bu_conv2(pan_out2)  # 256->256/16
        p_out1 = th.cat([p_out1, fpn_out1], 1)  # 256->512/16
        pan_out1 = self.C3_n3(p_out1)  # 512->512/16

        p_out0 = self.bu_conv1(pan_out1)  # 512->512/32
        p_out0 = th.cat([p_out0, fpn_out0], 1)  # 512->1024/32
        pan_out0 = self.C3_n4(p_out0)  # 1024->1024/32

        outputs = (pan_out2, pan_out1, pan_out0)
        return outputs


class RVTNeck(nn.Module):
    """Feeds the three backbone stages (the RVT BackboneFeatures dict) to the PAFPN."""

    def __init__(self):
        super().__init__()
        self.fpn = YOLOPAFPN(depth=0.33, in_stages=(2, 3, 4), in_channels=(16, 32, 64))

    def forward(self, x2, x1, x0):
        return self.fpn({2: x2, 3: x1, 4: x0})


def make_model():
    return RVTNeck().eval()


def example_inputs():
    return (th.randn(2, 16, 24, 32), th.randn(2, 32, 12, 16), th.randn(2, 64, 6, 8))


def other_inputs():
    return [(th.randn(3, 16, 24, 32), th.randn(3, 32, 12, 16), th.randn(3, 64, 6, 8)),
            (th.randn(1, 16, 24, 32), th.randn(1, 32, 12, 16), th.randn(1, 64, 6, 8))]


def probe_inputs():
    return other_inputs()
