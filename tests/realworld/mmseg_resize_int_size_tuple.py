"""mmsegmentation EncoderDecoder: encode_decode() upsamples the decode-head logits back to the image with
`resize(input=out, size=img.shape[2:], ...)`, and mmseg's `resize` wrapper does
`if isinstance(size, torch.Size): size = tuple(int(x) for x in size)` before F.interpolate; exporting with
dynamic height/width, the output size is frozen at the export image size (the PR comments those lines out to
make `pytorch2onnx --dynamic-export` work).

Source: https://github.com/open-mmlab/mmsegmentation/pull/463
"""
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"img": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-8"


def resize(input,
           size=None,
           scale_factor=None,
           mode='nearest',
           align_corners=None,
           warning=True):
    if warning:
        if size is not None and align_corners:
            input_h, input_w = tuple(int(x) for x in input.shape[2:])
            output_h, output_w = tuple(int(x) for x in size)
            if output_h > input_h or output_w > output_h:
                if ((output_h > 1 and output_w > 1 and input_h > 1
                     and input_w > 1) and (output_h - 1) % (input_h - 1)
                        and (output_w - 1) % (input_w - 1)):
                    warnings.warn(
                        f'When align_corners={align_corners}, '
                        'the output would more aligned if '
                        f'input size {(input_h, input_w)} is `x+1` and '
                        f'out size {(output_h, output_w)} is `nx+1`')
    if isinstance(size, torch.Size):
        size = tuple(int(x) for x in size)
    return F.interpolate(input, size, scale_factor, mode, align_corners)


class FCNHead(nn.Module):
    def __init__(self, in_channels=64, channels=32, num_classes=5):
        super().__init__()
        self.convs = nn.Sequential(
            nn.Conv2d(in_channels, channels, 3, padding=1, bias=False), nn.BatchNorm2d(channels), nn.ReLU(inplace=True))
        self.dropout = nn.Dropout2d(0.1)
        self.conv_seg = nn.Conv2d(channels, num_classes, kernel_size=1)

    def forward(self, inputs):
        x = inputs[-1]
        output = self.convs(x)
        output = self.conv_seg(self.dropout(output))
        return output


class EncoderDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.ReLU(inplace=True))
        self.decode_head = FCNHead()
        self.align_corners = False

    def extract_feat(self, img):
        return [self.backbone(img)]

    def encode_decode(self, img):
        x = self.extract_feat(img)
        out = self.decode_head(x)
        out = resize(
            input=out,
            size=img.shape[2:],
            mode='bilinear',
            align_corners=self.align_corners)
        return out

    def forward(self, img):
        seg_logit = self.encode_decode(img)
        output = F.softmax(seg_logit, dim=1)
        return output


def make_model():
    return EncoderDecoder().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 96),)


def other_inputs():
    return [(torch.randn(2, 3, 96, 64),), (torch.randn(1, 3, 80, 120),)]


def probe_inputs():
    return other_inputs()
