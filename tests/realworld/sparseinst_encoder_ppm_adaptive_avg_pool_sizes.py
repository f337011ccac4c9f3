"""SparseInst (real-time instance segmentation) InstanceContextEncoder: its PyramidPoolingModule pools the
top feature map with `nn.AdaptiveAvgPool2d(output_size=(size, size))` for sizes (1, 2, 3, 6), then upsamples
each prior back to (h, w); the reporter says the ONNX export "wouldn't build" with the PPM and removed it
(their TensorRT fork replaces the adaptive pooling with a fixed AvgPool2d for a 640x640 input).

Source: https://github.com/hustvl/SparseInst/issues/75
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"res5": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-10"


def Conv2d(in_channels, out_channels, kernel_size, padding=0):
    return nn.Conv2d(in_channels, out_channels, kernel_size, padding=padding)


class PyramidPoolingModule(nn.Module):

    def __init__(self, in_channels, channels=512, sizes=(1, 2, 3, 6)):
        super().__init__()
        self.stages = []
        self.stages = nn.ModuleList(
            [self._make_stage(in_channels, channels, size) for size in sizes]
        )
        self.bottleneck = Conv2d(
            in_channels + len(sizes) * channels, in_channels, 1)

    def _make_stage(self, features, out_features, size):
        prior = nn.AdaptiveAvgPool2d(output_size=(size, size))
        conv = Conv2d(features, out_features, 1)
        return nn.Sequential(prior, conv)

    def forward(self, feats):
        h, w = feats.size(2), feats.size(3)
        priors = [F.interpolate(input=F.relu_(stage(feats)), size=(
            h, w), mode='bilinear', align_corners=False) for stage in self.stages] + [feats]
        out = F.relu_(self.bottleneck(torch.cat(priors, 1)))
        return out


class InstanceContextEncoder(nn.Module):
    """Top level of the encoder only: lateral conv on res5, then the PPM (as in SparseInst)."""

    def __init__(self, in_channels=64, num_channels=32):
        super().__init__()
        self.fpn_lateral = Conv2d(in_channels, num_channels, 1)
        self.fpn_output = Conv2d(num_channels, num_channels, 3, padding=1)
        self.ppm = PyramidPoolingModule(num_channels, num_channels // 4)
        self.fusion = nn.Conv2d(num_channels, num_channels, 1)

    def forward(self, res5):
        prev_features = self.ppm(self.fpn_lateral(res5))
        out = self.fpn_output(prev_features)
        return self.fusion(out)


def make_model():
    return InstanceContextEncoder().eval()


def example_inputs():
    return (torch.randn(1, 64, 20, 20),)


def other_inputs():
    return [(torch.randn(2, 64, 17, 25),), (torch.randn(1, 64, 11, 14),)]


def probe_inputs():
    return other_inputs()
