"""Video super-resolution / video-diffusion upsampler head: features kept as (B, T, C, H, W) frames and
upscaled with `nn.PixelShuffle(2)` applied directly to the 5-D tensor (PixelShuffle accepts leading
batch dims). The torchlib PR adds a pixel_shuffle that collapses the leading dims; the TorchScript
exporter's symbolic still rejects it: "ONNX export of operator pixel_shuffle, only support 4d input".

Source: https://github.com/microsoft/onnxscript/pull/1514
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "frames", 3: "height", 4: "width"}}
BLIND = "operators-62"


class FrameUpsampler(nn.Module):
    def __init__(self, channels=16, out_channels=3, scale=2):
        super().__init__()
        self.conv_before = nn.Conv3d(channels, out_channels * scale * scale, kernel_size=(1, 3, 3), padding=(0, 1, 1))
        self.pixel_shuffle = nn.PixelShuffle(scale)
        self.act = nn.LeakyReLU(0.1)

    def forward(self, x):
        # x: (B, T, C, H, W)
        x = self.conv_before(x.transpose(1, 2)).transpose(1, 2)  # (B, T, C*r*r, H, W)
        x = self.pixel_shuffle(x)                                  # (B, T, C, H*r, W*r)
        return self.act(x)


def make_model():
    return FrameUpsampler().eval()


def example_inputs():
    return (torch.randn(1, 4, 16, 12, 12),)


def other_inputs():
    return [(torch.randn(2, 6, 16, 10, 14),), (torch.randn(1, 3, 16, 9, 7),)]


def probe_inputs():
    return other_inputs()
