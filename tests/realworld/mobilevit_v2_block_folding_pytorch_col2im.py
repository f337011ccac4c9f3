"""MobileViT (apple/ml-cvnets) segmentation model: the MobileViTBlockv2 turns the feature map into
patches with F.unfold and back with F.fold (`folding_pytorch`); the report says torch.onnx.export
fails with "Exporting the operator ::col2im to ONNX opset version 11 is not supported".

Source: https://github.com/pytorch/pytorch/issues/84408
"""
import math

import torch
from torch import nn, Tensor
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-14"


class MobileViTBlockv2(nn.Module):
    def __init__(self, in_channels=16, attn_unit_dim=32, patch_h=2, patch_w=2):
        super().__init__()
        self.local_rep = nn.Sequential(
            nn.Conv2d(in_channels, in_channels, 3, padding=1, groups=in_channels),
            nn.BatchNorm2d(in_channels), nn.SiLU(),
            nn.Conv2d(in_channels, attn_unit_dim, 1, bias=False),
        )
        # LinearAttnFFN blocks work on [B, C, P, N] patches with 1x1 convs and a 2D layer norm
        self.global_rep = nn.Sequential(
            nn.GroupNorm(1, attn_unit_dim),
            nn.Conv2d(attn_unit_dim, attn_unit_dim, 1), nn.SiLU(),
            nn.Conv2d(attn_unit_dim, attn_unit_dim, 1),
            nn.GroupNorm(1, attn_unit_dim),
        )
        self.conv_proj = nn.Sequential(nn.Conv2d(attn_unit_dim, in_channels, 1, bias=False),
                                       nn.BatchNorm2d(in_channels))
        self.patch_h = patch_h
        self.patch_w = patch_w
        self.enable_coreml_compatible_fn = False

    def unfolding_pytorch(self, feature_map: Tensor):
        batch_size, in_channels, img_h, img_w = feature_map.shape
        # [B, C, H, W] --> [B, C, P, N]
        patches = F.unfold(
            feature_map,
            kernel_size=(self.patch_h, self.patch_w),
            stride=(self.patch_h, self.patch_w),
        )
        patches = patches.reshape(
            batch_size, in_channels, self.patch_h * self.patch_w, -1
        )
        return patches, (img_h, img_w)

    def folding_pytorch(self, patches: Tensor, output_size) -> Tensor:
        batch_size, in_dim, patch_size, n_patches = patches.shape
        # [B, C, P, N]
        patches = patches.reshape(batch_size, in_dim * patch_size, n_patches)
        feature_map = F.fold(
            patches,
            output_size=output_size,
            kernel_size=(self.patch_h, self.patch_w),
            stride=(self.patch_h, self.patch_w),
        )
        return feature_map

    def resize_input_if_needed(self, x):
        batch_size, in_channels, orig_h, orig_w = x.shape
        if orig_h % self.patch_h != 0 or orig_w % self.patch_w != 0:
            new_h = int(math.ceil(orig_h / self.patch_h) * self.patch_h)
            new_w = int(math.ceil(orig_w / self.patch_w) * self.patch_w)
            x = F.interpolate(x, size=(new_h, new_w), mode="bilinear", align_corners=True)
        return x

    def forward(self, x: Tensor) -> Tensor:
        x = self.resize_input_if_needed(x)
        fm = self.local_rep(x)
        patches, output_size = self.unfolding_pytorch(fm)
        patches = self.global_rep(patches)
        fm = self.folding_pytorch(patches=patches, output_size=output_size)
        fm = self.conv_proj(fm)
        return fm


class MobileViTSeg(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.SiLU())
        self.block = MobileViTBlockv2(16)
        self.head = nn.Conv2d(16, num_classes, 1)

    def forward(self, x):
        out = self.head(self.block(self.stem(x)))
        return F.interpolate(out, size=x.shape[2:], mode="bilinear", align_corners=False)


def make_model():
    return MobileViTSeg().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(2, 3, 48, 80),), (torch.randn(3, 3, 96, 32),)]


def probe_inputs():
    return other_inputs()
