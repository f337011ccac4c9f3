"""mmcls VisionTransformer with dynamic input resolution: `resize_pos_embed` returns the position
embedding as-is when `src_shape[0] == dst_shape[0] and src_shape[1] == dst_shape[1]`, else resizes it
with F.interpolate; exported at the training size with --dynamic-export, onnxruntime fails with a
Reshape hard-coded to the example's 14x14 patches on a larger image.

Source: https://github.com/open-mmlab/mmpretrain/issues/724
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-10"


def resize_pos_embed(pos_embed,
                     src_shape,
                     dst_shape,
                     mode='bicubic',
                     num_extra_tokens=1):
    if src_shape[0] == dst_shape[0] and src_shape[1] == dst_shape[1]:
        return pos_embed
    assert pos_embed.ndim == 3, 'shape of pos_embed must be [1, L, C]'
    _, L, C = pos_embed.shape
    src_h, src_w = src_shape
    assert L == src_h * src_w + num_extra_tokens
    extra_tokens = pos_embed[:, :num_extra_tokens]

    src_weight = pos_embed[:, num_extra_tokens:]
    src_weight = src_weight.reshape(1, src_h, src_w, C).permute(0, 3, 1, 2)

    dst_weight = F.interpolate(
        src_weight, size=dst_shape, align_corners=False, mode=mode)
    dst_weight = torch.flatten(dst_weight, 2).transpose(1, 2)

    return torch.cat((extra_tokens, dst_weight), dim=1)


class PatchEmbed(nn.Module):
    def __init__(self, in_channels=3, embed_dims=32, patch_size=16):
        super().__init__()
        self.projection = nn.Conv2d(in_channels, embed_dims, patch_size, stride=patch_size)
        self.norm = nn.LayerNorm(embed_dims)

    def forward(self, x):
        x = self.projection(x)
        out_size = (x.shape[2], x.shape[3])
        x = x.flatten(2).transpose(1, 2)
        x = self.norm(x)
        return x, out_size


class VisionTransformer(nn.Module):
    def __init__(self, img_size=64, patch_size=16, embed_dims=32):
        super().__init__()
        self.patch_embed = PatchEmbed(3, embed_dims, patch_size)
        self.patch_resolution = (img_size // patch_size, img_size // patch_size)
        num_patches = self.patch_resolution[0] * self.patch_resolution[1]
        self.num_extra_tokens = 1
        self.interpolate_mode = 'bicubic'
        self.cls_token = nn.Parameter(torch.randn(1, 1, embed_dims))
        self.pos_embed = nn.Parameter(torch.randn(1, num_patches + self.num_extra_tokens, embed_dims))
        self.layers = nn.ModuleList([nn.Sequential(nn.LayerNorm(embed_dims), nn.Linear(embed_dims, embed_dims))])
        self.norm1 = nn.LayerNorm(embed_dims)

    def forward(self, x):
        B = x.shape[0]
        x, patch_resolution = self.patch_embed(x)

        # stole cls_tokens impl from Phil Wang, thanks
        cls_tokens = self.cls_token.expand(B, -1, -1)
        x = torch.cat((cls_tokens, x), dim=1)
        x = x + resize_pos_embed(
            self.pos_embed,
            self.patch_resolution,
            patch_resolution,
            mode=self.interpolate_mode,
            num_extra_tokens=self.num_extra_tokens)

        for i, layer in enumerate(self.layers):
            x = x + layer(x)
        x = self.norm1(x)

        B, _, C = x.shape
        patch_token = x[:, 1:].reshape(B, *patch_resolution, C)
        patch_token = patch_token.permute(0, 3, 1, 2)
        cls_token = x[:, 0]
        return patch_token, cls_token


def make_model():
    return VisionTransformer()


def example_inputs():
    return (torch.randn(1, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(2, 3, 96, 64),), (torch.randn(3, 3, 48, 80),)]


def probe_inputs():
    return other_inputs()
