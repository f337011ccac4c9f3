"""SOLOv2's mask feature head (the SOLOv2.tensorRT deployment repo's export path) adds CoordConv channels built with
`torch.linspace(-1, 1, input_feat.shape[-1])` / `shape[-2]` and meshgrid; the report's export to ONNX fails with
"Exporting the operator linspace to ONNX opset version 11 is not supported".

Source: https://github.com/zhangjinsong3/SOLOv2.tensorRT/issues/14
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"feat": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-30"


class MaskFeatHead(nn.Module):
    def __init__(self, in_channels=16, out_channels=16, num_classes=8):
        super().__init__()
        self.conv_coord = nn.Sequential(
            nn.Conv2d(in_channels + 2, out_channels, 3, padding=1),
            nn.GroupNorm(4, out_channels),
            nn.ReLU(inplace=True),
        )
        self.conv_pred = nn.Conv2d(out_channels, num_classes, 1)

    def forward(self, feat):
        input_feat = feat
        x_range = torch.linspace(-1, 1, input_feat.shape[-1], device=input_feat.device)
        y_range = torch.linspace(-1, 1, input_feat.shape[-2], device=input_feat.device)
        y, x = torch.meshgrid(y_range, x_range)
        y = y.expand([input_feat.shape[0], 1, -1, -1])
        x = x.expand([input_feat.shape[0], 1, -1, -1])
        coord_feat = torch.cat([x, y], 1)
        input_feat = torch.cat([input_feat, coord_feat], 1)
        feature_add_all_level = self.conv_coord(input_feat)
        return F.relu(self.conv_pred(feature_add_all_level))


def make_model():
    return MaskFeatHead()


def example_inputs():
    return (torch.randn(2, 16, 28, 42),)


def other_inputs():
    return [(torch.randn(1, 16, 20, 36),), (torch.randn(3, 16, 34, 24),)]


def probe_inputs():
    return other_inputs()
