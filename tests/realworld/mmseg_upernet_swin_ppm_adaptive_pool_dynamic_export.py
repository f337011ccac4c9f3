"""mmsegmentation UPerNet (Swin backbone) exported with tools/pytorch2onnx.py --dynamic-export: the UPerHead's
PPM runs `nn.AdaptiveAvgPool2d(pool_scale)` for pool_scales (1, 2, 3, 6) on the last backbone feature, and the
export fails with "NotImplementedError: [Adaptive pool]:input size not accessible" (maintainer: adaptive pool
cannot be exported to ONNX with dynamic shape).

Source: https://github.com/open-mmlab/mmsegmentation/issues/1840
"""
import warnings

import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"img": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-9"


def resize(input, size=None, scale_factor=None, mode='nearest', align_corners=None, warning=True):
    if warning:
        if size is not None and align_corners:
            input_h, input_w = tuple(int(x) for x in input.shape[2:])
            output_h, output_w = tuple(int(x) for x in size)
            if output_h > input_h or output_w > output_h:
                if ((output_h > 1 and output_w > 1 and input_h > 1 and input_w > 1) and (output_h - 1) % (input_h - 1)
                        and (output_w - 1) % (input_w - 1)):
                    warnings.warn(f'When align_corners={align_corners}, the output would more aligned if '
                                  f'input size {(input_h, input_w)} is `x+1` and out size {(output_h, output_w)} is `nx+1`')
    return F.interpolate(input, size, scale_factor, mode, align_corners)


class ConvModule(nn.Sequential):
    def __init__(self, in_channels, out_channels, kernel_size, padding=0):
        super().__init__(nn.Conv2d(in_channels, out_channels, kernel_size, padding=padding, bias=False),
                         nn.BatchNorm2d(out_channels), nn.ReLU(inplace=True))


class PPM(nn.ModuleList):
    """Pooling Pyramid Module used in PSPNet (mmseg/models/decode_heads/psp_head.py)."""

    def __init__(self, pool_scales, in_channels, channels, align_corners):
        super().__init__()
        self.pool_scales = pool_scales
        self.align_corners = align_corners
        self.in_channels = in_channels
        self.channels = channels
        for pool_scale in pool_scales:
            self.append(nn.Sequential(nn.AdaptiveAvgPool2d(pool_scale), ConvModule(self.in_channels, self.channels, 1)))

    def forward(self, x):
        ppm_outs = []
        for ppm in self:
            ppm_out = ppm(x)
            upsampled_ppm_out = resize(ppm_out, size=x.size()[2:], mode='bilinear', align_corners=self.align_corners)
            ppm_outs.append(upsampled_ppm_out)
        return ppm_outs


class UPerNetPSPPart(nn.Module):
    """A stand-in 32x-downsampling backbone + UPerHead.psp_forward + cls_seg, resized back to the image."""

    def __init__(self, channels=32, num_classes=19, pool_scales=(1, 2, 3, 6)):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 32, 4, 4), nn.GELU(), nn.Conv2d(32, 64, 2, 2), nn.GELU(),
                                      nn.Conv2d(64, 64, 2, 2), nn.GELU(), nn.Conv2d(64, 64, 2, 2))
        self.align_corners = False
        self.psp_modules = PPM(pool_scales, 64, channels, align_corners=self.align_corners)
        self.bottleneck = ConvModule(64 + len(pool_scales) * channels, channels, 3, padding=1)
        self.conv_seg = nn.Conv2d(channels, num_classes, kernel_size=1)

    def psp_forward(self, inputs):
        x = inputs[-1]
        psp_outs = [x]
        psp_outs.extend(self.psp_modules(x))
        psp_outs = torch.cat(psp_outs, dim=1)
        output = self.bottleneck(psp_outs)
        return output

    def forward(self, img):
        feats = [self.backbone(img)]
        seg_logit = self.conv_seg(self.psp_forward(feats))
        return resize(seg_logit, size=img.shape[2:], mode='bilinear', align_corners=self.align_corners)


def make_model():
    return UPerNetPSPPart().eval()


def example_inputs():
    return (torch.randn(1, 3, 224, 224),)


def other_inputs():
    return [(torch.randn(2, 3, 320, 256),), (torch.randn(1, 3, 192, 416),)]


def probe_inputs():
    return other_inputs()
