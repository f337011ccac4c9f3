"""A 3-D SegNet-style volume segmenter pools with nn.MaxPool3d(return_indices=True) and upsamples in
the decoder with nn.MaxUnpool3d(indices); the (unmerged) PR adding a max_unpool symbolic to the ONNX
exporter records that max_unpool does not export. On torch 2.13 the TorchScript exporter still fails on
max_unpool3d.

Source: https://github.com/pytorch/pytorch/pull/55411
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "depth", 3: "height", 4: "width"}}
BLIND = "operators-64"


class SegNet3D(nn.Module):
    def __init__(self, in_ch=1, num_classes=3, ch=8):
        super().__init__()
        self.enc1 = nn.Sequential(nn.Conv3d(in_ch, ch, 3, padding=1), nn.BatchNorm3d(ch), nn.ReLU(inplace=True))
        self.enc2 = nn.Sequential(nn.Conv3d(ch, ch * 2, 3, padding=1), nn.BatchNorm3d(ch * 2), nn.ReLU(inplace=True))
        self.pool = nn.MaxPool3d(kernel_size=2, stride=2, return_indices=True)
        self.unpool = nn.MaxUnpool3d(kernel_size=2, stride=2)
        self.dec2 = nn.Sequential(nn.Conv3d(ch * 2, ch, 3, padding=1), nn.BatchNorm3d(ch), nn.ReLU(inplace=True))
        self.dec1 = nn.Conv3d(ch, num_classes, 3, padding=1)

    def forward(self, x):
        x = self.enc1(x)
        x, idx1 = self.pool(x)
        x = self.enc2(x)
        x, idx2 = self.pool(x)
        x = self.unpool(x, idx2)
        x = self.dec2(x)
        x = self.unpool(x, idx1)
        return self.dec1(x)


def make_model():
    return SegNet3D().eval()


def example_inputs():
    return (torch.randn(1, 1, 8, 16, 16),)


def other_inputs():
    return [(torch.randn(2, 1, 12, 20, 24),), (torch.randn(1, 1, 4, 8, 12),)]


def probe_inputs():
    return other_inputs()
