"""Metric3D's DINOv2-reg ViT backbone (mono/model/backbones/ViT_DINO_reg.py) rounds the input up to a multiple of
the patch size in `forward_features`: `pad_h = patch_size - H % patch_size`, `if pad_h == self.patch_size: pad_h = 0`,
and only `if pad_h + pad_w > 0` bilinearly resizes the image before the patch embedding (which asserts
`H % patch_H == 0`). Running onnx/metric3d_onnx_export.py prints TracerWarnings on exactly these lines
(ViT_DINO_reg.py:984/986 and the PatchEmbed assert): the branches are frozen at the export resolution.

Source: https://github.com/YvanYin/Metric3D/issues/126
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-26"


def make_2tuple(x):
    if isinstance(x, tuple):
        return x
    return (x, x)


class PatchEmbed(nn.Module):
    def __init__(self, patch_size=14, in_chans=3, embed_dim=64):
        super().__init__()
        self.patch_size = make_2tuple(patch_size)
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=self.patch_size, stride=self.patch_size)
        self.norm = nn.Identity()

    def forward(self, x):
        _, _, H, W = x.shape
        patch_H, patch_W = self.patch_size
        assert H % patch_H == 0, f"Input image height {H} is not a multiple of patch height {patch_H}"
        assert W % patch_W == 0, f"Input image width {W} is not a multiple of patch width: {patch_W}"
        x = self.proj(x)  # B C H W
        x = x.flatten(2).transpose(1, 2)  # B HW C
        x = self.norm(x)
        return x


class DinoVisionTransformer(nn.Module):
    def __init__(self, patch_size=14, embed_dim=64, num_register_tokens=4):
        super().__init__()
        self.patch_size = patch_size
        self.num_register_tokens = num_register_tokens
        self.patch_embed = PatchEmbed(patch_size=patch_size, embed_dim=embed_dim)
        self.cls_token = nn.Parameter(torch.randn(1, 1, embed_dim) * 0.02)
        self.register_tokens = nn.Parameter(torch.randn(1, num_register_tokens, embed_dim) * 0.02)
        self.blocks = nn.Sequential(nn.Linear(embed_dim, embed_dim), nn.GELU())
        self.norm = nn.LayerNorm(embed_dim)

    def prepare_tokens_with_masks(self, x, masks=None):
        B, nc, w, h = x.shape
        x = self.patch_embed(x)
        x = torch.cat((self.cls_token.expand(x.shape[0], -1, -1), x), dim=1)
        x = torch.cat((x[:, :1], self.register_tokens.expand(x.shape[0], -1, -1), x[:, 1:]), dim=1)
        return x

    def forward_features(self, x, masks=None):
        B, C, H, W = x.size()
        pad_h = (self.patch_size - H % self.patch_size)
        pad_w = (self.patch_size - W % self.patch_size)
        if pad_h == self.patch_size:
            pad_h = 0
        if pad_w == self.patch_size:
            pad_w = 0
        if pad_h + pad_w > 0:
            x = torch.nn.functional.interpolate(x, (H+pad_h, W+pad_w), mode='bilinear')

        x = self.prepare_tokens_with_masks(x, masks)
        x = self.blocks(x)
        x_norm = self.norm(x)
        return x_norm[:, self.num_register_tokens + 1:]

    def forward(self, x):
        return self.forward_features(x)


def make_model():
    return DinoVisionTransformer().eval()


def example_inputs():
    return (torch.randn(1, 3, 56, 70),)


def other_inputs():
    return [(torch.randn(2, 3, 60, 75),), (torch.randn(3, 3, 42, 98),)]


def probe_inputs():
    return other_inputs()
