"""mmsegmentation PSPNet exported with pytorch2onnx --dynamic-export: PSPHead's PPM applies
`nn.AdaptiveAvgPool2d(pool_scale)` (pool_scales 1, 2, 3, 6) to a feature map whose height/width are dynamic,
and the export stops with "[Adaptive pool]: input size not accessible".

Source: https://github.com/open-mmlab/mmsegmentation/issues/1310
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"img": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-16"


def resize(input, size=None, scale_factor=None, mode='nearest', align_corners=None):
    return F.interpolate(input, size, scale_factor, mode, align_corners)


class ConvModule(nn.Sequential):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1):
        super().__init__(
            nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding, dilation, bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(inplace=True))


class PPM(nn.ModuleList):
    def __init__(self, pool_scales, in_channels, channels, align_corners):
        super(PPM, self).__init__()
        self.pool_scales = pool_scales
        self.align_corners = align_corners
        self.in_channels = in_channels
        self.channels = channels
        for pool_scale in pool_scales:
            self.append(
                nn.Sequential(
                    nn.AdaptiveAvgPool2d(pool_scale),
                    ConvModule(self.in_channels, self.channels, 1)))

    def forward(self, x):
        ppm_outs = []
        for ppm in self:
            ppm_out = ppm(x)
            upsampled_ppm_out = resize(
                ppm_out,
                size=x.size()[2:],
                mode='bilinear',
                align_corners=self.align_corners)
            ppm_outs.append(upsampled_ppm_out)
        return ppm_outs


class PSPHead(nn.Module):
    def __init__(self, in_channels=64, channels=32, num_classes=21, pool_scales=(1, 2, 3, 6),
                 align_corners=False):
        super(PSPHead, self).__init__()
        self.in_channels = in_channels
        self.channels = channels
        self.align_corners = align_corners
        self.pool_scales = pool_scales
        self.psp_modules = PPM(self.pool_scales, self.in_channels, self.channels,
                               align_corners=self.align_corners)
        self.bottleneck = ConvModule(self.in_channels + len(pool_scales) * self.channels,
                                     self.channels, 3, padding=1)
        self.conv_seg = nn.Conv2d(channels, num_classes, kernel_size=1)

    def forward(self, x):
        psp_outs = [x]
        psp_outs.extend(self.psp_modules(x))
        psp_outs = torch.cat(psp_outs, dim=1)
        output = self.bottleneck(psp_outs)
        output = self.conv_seg(output)
        return output


class EncoderDecoder(nn.Module):
    def __init__(self, align_corners=False):
        super().__init__()
        self.align_corners = align_corners
        # ResNetV1c-D8 stand-in: output stride 8, dilated last stage
        self.backbone = nn.Sequential(
            ConvModule(3, 16, 3, 2, 1), ConvModule(16, 32, 3, 2, 1), ConvModule(32, 64, 3, 2, 1),
            ConvModule(64, 64, 3, 1, 2, dilation=2))
        self.decode_head = PSPHead(64, 32, align_corners=align_corners)

    def forward(self, img):
        x = self.backbone(img)
        out = self.decode_head(x)
        out = resize(
            input=out,
            size=img.shape[2:],
            mode='bilinear',
            align_corners=self.align_corners)
        return out


def make_model():
    return EncoderDecoder().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 96),)


def other_inputs():
    return [(torch.randn(1, 3, 72, 80),), (torch.randn(3, 3, 56, 104),)]


def probe_inputs():
    return other_inputs()
