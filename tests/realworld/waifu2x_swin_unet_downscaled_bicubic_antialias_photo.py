"""waifu2x (nunif) `SwinUNetDownscaled`, the photo model: a 4x swin_unet whose output is downscaled to 2x/1x
with `F.interpolate(..., mode="bicubic", align_corners=False, antialias=True)`.  The commit that adds ONNX
export for it says "PyTorch's onnx exporter does not support downscaling with antialias" (the TorchScript
exporter has no symbolic for `aten::_upsample_bicubic2d_aa`), so the export script sets `antialias=False`,
exports at opset 18 and patches `antialias=1` into the Resize node afterwards.  (The Swin-Transformer U-Net
body is reduced to a conv + pixel_shuffle 4x stand-in.)

Source: https://github.com/nagadomi/nunif/commit/3f9830eb9a1b6edefa5c9d5a5aa4680fb880b5d0
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-42"


class SwinUNetBase(nn.Module):
    # stand-in for the 4x Swin U-Net body
    def __init__(self, in_channels=3, out_channels=3, scale_factor=4):
        super().__init__()
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.body = nn.Conv2d(in_channels, out_channels * scale_factor ** 2, 3, 1, 1)
        self.to_image = nn.PixelShuffle(scale_factor)

    def forward(self, x):
        return self.to_image(self.body(x))


class SwinUNetDownscaled(nn.Module):
    name = "waifu2x.swin_unet_downscaled"

    def __init__(self, in_channels=3, out_channels=3, downscale_factor=2, unet=None):
        assert downscale_factor in {2, 4}
        super().__init__()
        if unet is None:
            self.unet = SwinUNetBase(in_channels=in_channels, out_channels=out_channels, scale_factor=4)
        else:
            self.unet = unet
        self.mode = "bicubic"
        self.downscale_factor = downscale_factor

    def forward(self, x):
        z = self.unet(x)
        if self.training:
            z = F.interpolate(z, size=(z.shape[2] // self.downscale_factor, z.shape[3] // self.downscale_factor),
                              mode=self.mode, align_corners=False, antialias=True)
            return z
        else:
            z = torch.clamp(z, 0., 1.)
            z = F.interpolate(z, size=(z.shape[2] // self.downscale_factor, z.shape[3] // self.downscale_factor),
                              mode=self.mode, align_corners=False, antialias=True)
            z = torch.clamp(z, 0., 1.)
            return z


def make_model():
    return SwinUNetDownscaled(in_channels=3, out_channels=3, downscale_factor=2).eval()


def example_inputs():
    return (torch.rand(1, 3, 64, 64),)


def other_inputs():
    return [(torch.rand(2, 3, 112, 160),), (torch.rand(1, 3, 40, 88),)]


def probe_inputs():
    return other_inputs()
