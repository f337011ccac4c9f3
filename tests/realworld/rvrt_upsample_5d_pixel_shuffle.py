"""RVRT (video super-resolution) upsamples its (n, c, d, h, w) features with an `Upsample` block that
transposes to (n, d, c, h, w) and feeds the 5D tensor straight into `nn.PixelShuffle(2)`. An export script
for RVRT says the ONNX exporter rejects this ("only 4D supported"; the legacy exporter raises
"Unsupported: ONNX export of operator pixel_shuffle, only support 4d input") and swaps in a reshape/permute
pixel shuffle.

Source: https://github.com/streamdock-dev/models/blob/0281bdbbc0c4f0252cee05f599ba96b7821f692d/export_rvrt_onnx.py
"""
import math

import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"lqs": {0: "batch", 1: "frames", 3: "height", 4: "width"}}
BLIND = "operators-39"


class Upsample(nn.Sequential):
    """Upsample module for video SR.

    Args:
        scale (int): Scale factor. Supported scales: 2^n and 3.
        num_feat (int): Channel number of intermediate features.
    """

    def __init__(self, scale, num_feat):
        class Transpose_Dim12(nn.Module):
            """ Transpose Dim1 and Dim2 of a tensor."""

            def __init__(self):
                super().__init__()

            def forward(self, x):
                return x.transpose(1, 2)

        m = []
        if (scale & (scale - 1)) == 0:  # scale = 2^n
            for _ in range(int(math.log(scale, 2))):
                m.append(nn.Conv3d(num_feat, 4 * num_feat, kernel_size=(1, 3, 3), padding=(0, 1, 1)))
                m.append(Transpose_Dim12())
                m.append(nn.PixelShuffle(2))
                m.append(Transpose_Dim12())
                m.append(nn.LeakyReLU(negative_slope=0.1, inplace=True))
            m.append(nn.Conv3d(num_feat, num_feat, kernel_size=(1, 3, 3), padding=(0, 1, 1)))
        elif scale == 3:
            m.append(nn.Conv3d(num_feat, 9 * num_feat, kernel_size=(1, 3, 3), padding=(0, 1, 1)))
            m.append(Transpose_Dim12())
            m.append(nn.PixelShuffle(3))
            m.append(Transpose_Dim12())
            m.append(nn.LeakyReLU(negative_slope=0.1, inplace=True))
            m.append(nn.Conv3d(num_feat, num_feat, kernel_size=(1, 3, 3), padding=(0, 1, 1)))
        else:
            raise ValueError(f'scale {scale} is not supported. ' 'Supported scales: 2^n and 3.')
        super(Upsample, self).__init__(*m)


class RVRTReconstruction(nn.Module):
    def __init__(self, in_chans=3, num_feat=16, upscale=4):
        super().__init__()
        self.upscale = upscale
        self.conv_first = nn.Conv3d(in_chans, num_feat, kernel_size=(1, 3, 3), padding=(0, 1, 1))
        self.upsample = Upsample(upscale, num_feat)
        self.conv_last = nn.Conv3d(num_feat, in_chans, kernel_size=(1, 3, 3), padding=(0, 1, 1))

    def forward(self, lqs):
        # lqs: (n, t, c, h, w)
        n, t, c, h, w = lqs.size()
        x = self.conv_first(lqs.transpose(1, 2))
        out = self.conv_last(self.upsample(x)).transpose(1, 2)
        return out + torch.nn.functional.interpolate(
            lqs, size=(c, h * self.upscale, w * self.upscale), mode='trilinear', align_corners=False)


def make_model():
    return RVRTReconstruction().eval()


def example_inputs():
    return (torch.rand(1, 4, 3, 16, 20),)


def other_inputs():
    return [(torch.rand(2, 6, 3, 12, 24),), (torch.rand(1, 2, 3, 20, 16),)]


def probe_inputs():
    return other_inputs()
