"""BiRefNet (dichotomous segmentation / background removal): the decoder feeds the full-resolution
image in as patches, `get_patches_batch` loops `for idx in range(x.shape[0])` and cuts each image
with `torch.split(..., split_size_or_sections=_size_w)` / `_size_h` taken from the deepest feature
map, then concatenates the patches as channels; exporting for inputs other than the export size
(e.g. smaller than 1024x1024) fails, and the maintainer points at the `torch.split()` there.

Source: https://github.com/ZhengPeng7/BiRefNet/issues/107
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-41"


class Decoder(nn.Module):
    def __init__(self, channels=16, split=True):
        super().__init__()
        self.split = split
        N = channels
        self.ipt_blk5 = nn.Sequential(nn.Conv2d(2**10*3 if self.split else 3, N // 2, 3, 1, 1), nn.ReLU(inplace=True))
        self.decoder_block4 = nn.Sequential(nn.Conv2d(N + N // 2, N, 3, 1, 1), nn.ReLU(inplace=True))
        self.conv_out1 = nn.Conv2d(N, 1, 1, 1, 0)

    def get_patches_batch(self, x, p):
        _size_h, _size_w = p.shape[2:]
        patches_batch = []
        for idx in range(x.shape[0]):
            columns_x = torch.split(x[idx], split_size_or_sections=_size_w, dim=-1)
            patches_x = []
            for column_x in columns_x:
                patches_x += [p.unsqueeze(0) for p in torch.split(column_x, split_size_or_sections=_size_h, dim=-2)]
            patch_sample = torch.cat(patches_x, dim=1)
            patches_batch.append(patch_sample)
        return torch.cat(patches_batch, dim=0)

    def forward(self, features):
        x, x4 = features

        patches_batch = self.get_patches_batch(x, x4) if self.split else x
        x4 = torch.cat((x4, self.ipt_blk5(F.interpolate(patches_batch, size=x4.shape[2:], mode='bilinear', align_corners=True))), 1)
        p4 = self.decoder_block4(x4)
        p1_out = self.conv_out1(F.interpolate(p4, size=x.shape[2:], mode='bilinear', align_corners=True))
        return p1_out


class BiRefNet(nn.Module):
    """Swin backbone stand-in: a stride-32 conv stack giving x4."""

    def __init__(self, channels=16):
        super().__init__()
        self.bb = nn.Sequential(*[nn.Sequential(nn.Conv2d(3 if i == 0 else channels, channels, 3, 2, 1), nn.ReLU())
                                  for i in range(5)])
        self.decoder = Decoder(channels)

    def forward(self, x):
        x4 = self.bb(x)
        scaled_preds = self.decoder([x, x4])
        return scaled_preds.sigmoid()


def make_model():
    return BiRefNet().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 96),)


def other_inputs():
    return [(torch.randn(2, 3, 96, 64),), (torch.randn(1, 3, 128, 64),)]


def probe_inputs():
    return other_inputs()
