"""timm TinyViT `PatchMerging` turns (B, H*W, C) tokens back into an image with `B = len(x)` and
`x.view(B, H, W, -1)` behind an `if x.ndim == 3` test; timm's "Fixing tinyvit trace issue" commit replaces
them with a constructor-time `in_fmt` and `B = x.shape[0]` (len() of a tensor is a constant in a trace).

Source: https://github.com/huggingface/pytorch-image-models/commit/39aa44b192d8b5fce3393be9101d653201ce7c64
"""
import math

import torch
import torch.nn as nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "domains-36"


class ConvNorm(torch.nn.Sequential):
    def __init__(self, in_chs, out_chs, ks=1, stride=1, pad=0, dilation=1, groups=1, bn_weight_init=1):
        super().__init__()
        self.conv = nn.Conv2d(in_chs, out_chs, ks, stride, pad, dilation, groups, bias=False)
        self.bn = nn.BatchNorm2d(out_chs)
        torch.nn.init.constant_(self.bn.weight, bn_weight_init)
        torch.nn.init.constant_(self.bn.bias, 0)


class PatchEmbed(nn.Module):
    def __init__(self, in_chans, embed_dim, resolution, activation):
        super().__init__()
        self.patches_resolution = (math.ceil(resolution / 4), math.ceil(resolution / 4))
        n = embed_dim
        self.conv1 = ConvNorm(in_chans, n // 2, 3, 2, 1)
        self.act = activation()
        self.conv2 = ConvNorm(n // 2, n, 3, 2, 1)

    def forward(self, x):
        x = self.conv1(x)
        x = self.act(x)
        x = self.conv2(x)
        return x


class PatchMerging(nn.Module):
    def __init__(self, input_resolution, dim, out_dim, activation):
        super().__init__()
        self.input_resolution = input_resolution
        self.dim = dim
        self.out_dim = out_dim
        self.act = activation()
        self.conv1 = ConvNorm(dim, out_dim, 1, 1, 0)
        self.conv2 = ConvNorm(out_dim, out_dim, 3, 2, 1, groups=out_dim)
        self.conv3 = ConvNorm(out_dim, out_dim, 1, 1, 0)
        self.output_resolution = (math.ceil(input_resolution[0] / 2), math.ceil(input_resolution[1] / 2))

    def forward(self, x):
        if x.ndim == 3:
            H, W = self.input_resolution
            B = len(x)
            # (B, C, H, W)
            x = x.view(B, H, W, -1).permute(0, 3, 1, 2)
        x = self.conv1(x)
        x = self.act(x)
        x = self.conv2(x)
        x = self.act(x)
        x = self.conv3(x)
        x = x.flatten(2).transpose(1, 2)
        return x


class TinyVitLite(nn.Module):
    def __init__(self, img_size=64, dims=(16, 32, 48), num_classes=10):
        super().__init__()
        self.patch_embed = PatchEmbed(3, dims[0], img_size, nn.GELU)
        res = self.patch_embed.patches_resolution
        self.down1 = PatchMerging(res, dims[0], dims[1], nn.GELU)        # BCHW in, tokens out
        self.mlp = nn.Sequential(nn.LayerNorm(dims[1]), nn.Linear(dims[1], dims[1]))
        self.down2 = PatchMerging(self.down1.output_resolution, dims[1], dims[2], nn.GELU)  # tokens in
        self.head = nn.Linear(dims[2], num_classes)

    def forward(self, x):
        x = self.patch_embed(x)
        x = self.down1(x)
        x = x + self.mlp(x)
        x = self.down2(x)
        return self.head(x.mean(1))


def make_model():
    return TinyVitLite().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(3, 3, 64, 64),), (torch.randn(1, 3, 64, 64),)]


def probe_inputs():
    return other_inputs()
