"""waifu2x (nunif) `SwinUNetDownscaled`: the 4x swin_unet is reused as a 2x/1x model by downscaling its output,
and for ONNX the downscaling mode is "box", i.e. `box_resize` runs `F.avg_pool2d` with a kernel size computed
from the input size (`kernel_h = H // size[0]`, where `size` is itself `z.shape[2] // self.downscale_factor`).
The ONNX export of swin_unet failed there; the fix hard-codes the kernel ("NOTE: Need static kernel_size for
export").  (The Swin-Transformer U-Net body, which uses torchvision's SwinTransformerBlock, is reduced to a
conv + pixel_shuffle 4x stand-in.)

Source: https://github.com/nagadomi/nunif/commit/a78d0b2d8aed13819d1b829f8ea88faa1b987158
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-46"


class SwinUNetBase(nn.Module):
    # stand-in for the Swin U-Net: patch conv, a few conv layers, ToImage with pixel_shuffle(scale_factor)
    def __init__(self, in_channels=3, out_channels=3, base_dim=32, scale_factor=4):
        super().__init__()
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.patch = nn.Conv2d(in_channels, base_dim, kernel_size=3, padding=1)
        self.body = nn.Sequential(nn.Conv2d(base_dim, base_dim, 3, padding=1), nn.LeakyReLU(0.1, inplace=True),
                                  nn.Conv2d(base_dim, base_dim, 3, padding=1))
        self.proj = nn.Conv2d(base_dim, out_channels * scale_factor ** 2, kernel_size=1)
        self.scale_factor = scale_factor

    def forward(self, x):
        x = self.patch(x)
        x = x + self.body(x)
        x = self.proj(x)
        return F.pixel_shuffle(x, self.scale_factor)


def box_resize(x, size):
    H, W = x.shape[2:]
    assert H % size[0] == 0 or W % size[1] == 0 and H > size[0] and W > size[1]
    kernel_h = H // size[0]
    kernel_w = W // size[1]
    return F.avg_pool2d(x, kernel_size=(kernel_h, kernel_w), stride=(kernel_h, kernel_w))


def resize(x, size, mode, align_corners, antialias):
    if mode == "box":
        return box_resize(x, size=size)
    else:
        return F.interpolate(x, size=size, mode=mode, align_corners=align_corners, antialias=antialias)


class SwinUNetDownscaled(nn.Module):
    name = "waifu2x.swin_unet_downscaled"

    def __init__(self, in_channels=3, out_channels=3, downscale_factor=2, unet=None, pre_antialias=False):
        super().__init__()
        assert downscale_factor in {2, 4}
        if unet is None:
            self.unet = SwinUNetBase(in_channels=in_channels, out_channels=out_channels, scale_factor=4)
        else:
            self.unet = unet
        self.mode = "bicubic"
        self.antialias = True
        self.pre_antialias = pre_antialias
        self.downscale_factor = downscale_factor

    def forward(self, x):
        z = self.unet(x)
        if self.training:
            z = resize(z, size=(z.shape[2] // self.downscale_factor, z.shape[3] // self.downscale_factor),
                       mode=self.mode, align_corners=False, antialias=self.antialias)
            return z
        else:
            z = torch.clamp(z, 0., 1.)
            z = resize(z, size=(z.shape[2] // self.downscale_factor, z.shape[3] // self.downscale_factor),
                       mode=self.mode, align_corners=False, antialias=self.antialias)
            z = torch.clamp(z, 0., 1.)
            return z


def make_model():
    model = SwinUNetDownscaled(downscale_factor=2).eval()
    # waifu2x/export_onnx.py switches the downscaled swin_unet to box downscaling for ONNX
    model.mode = "box"
    return model


def example_inputs():
    return (torch.rand(1, 3, 32, 48),)


def other_inputs():
    return [(torch.rand(2, 3, 40, 24),), (torch.rand(1, 3, 56, 64),)]


def probe_inputs():
    return other_inputs()
