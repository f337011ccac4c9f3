"""ViTPose backbone run at a resolution other than 256x192: the maintainers' answer is to call the backbone's
`get_abs_pos` in forward, which compares the patch grid with the pretraining grid in Python
(`if ori_h != h or ori_w != w:`) and only then bicubic-interpolates the absolute position embedding to the new grid.
Exported with a dynamic image size, the branch is decided for the example size only.

Source: https://github.com/ViTAE-Transformer/ViTPose/issues/34
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {2: "height", 3: "width"}}
BLIND = "domains-70"


def get_abs_pos(abs_pos, h, w, ori_h, ori_w, has_cls_token=True):
    cls_token = None
    B, L, C = abs_pos.shape
    if has_cls_token:
        cls_token = abs_pos[:, 0:1]
        abs_pos = abs_pos[:, 1:]

    if ori_h != h or ori_w != w:
        new_abs_pos = F.interpolate(
            abs_pos.reshape(1, ori_h, ori_w, -1).permute(0, 3, 1, 2),
            size=(h, w),
            mode="bicubic",
            align_corners=False,
        ).permute(0, 2, 3, 1).reshape(B, -1, C)
    else:
        new_abs_pos = abs_pos

    if cls_token is not None:
        new_abs_pos = torch.cat([cls_token, new_abs_pos], dim=1)
    return new_abs_pos


class PatchEmbed(nn.Module):
    def __init__(self, img_size=(64, 48), patch_size=16, in_chans=3, embed_dim=32):
        super().__init__()
        self.patch_shape = (img_size[0] // patch_size, img_size[1] // patch_size)
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)

    def forward(self, x, **kwargs):
        B, C, H, W = x.shape
        x = self.proj(x)
        Hp, Wp = x.shape[2], x.shape[3]
        x = x.flatten(2).transpose(1, 2)
        return x, (Hp, Wp)


class ViT(nn.Module):
    """Trimmed ViTPose backbone (2 blocks, small dims) plus the heatmap head's deconv + final conv."""

    def __init__(self, img_size=(64, 48), embed_dim=32, depth=2, num_keypoints=17):
        super().__init__()
        self.patch_embed = PatchEmbed(img_size=img_size, embed_dim=embed_dim)
        num_patches = self.patch_embed.patch_shape[0] * self.patch_embed.patch_shape[1]
        self.pos_embed = nn.Parameter(torch.randn(1, num_patches + 1, embed_dim) * 0.02)
        self.blocks = nn.ModuleList(
            [nn.TransformerEncoderLayer(embed_dim, 4, embed_dim * 2, batch_first=True, norm_first=True) for _ in range(depth)]
        )
        self.last_norm = nn.LayerNorm(embed_dim)
        self.deconv = nn.Sequential(nn.ConvTranspose2d(embed_dim, 16, 4, 2, 1), nn.BatchNorm2d(16), nn.ReLU())
        self.final_layer = nn.Conv2d(16, num_keypoints, 1)

    def forward_features(self, x):
        B, C, H, W = x.shape
        x, (Hp, Wp) = self.patch_embed(x)

        if self.pos_embed is not None:
            # fit for multiple GPU training
            # since the first element for pos embed (sin-cos manner) is zero, it will cause no difference
            x = x + get_abs_pos(self.pos_embed, Hp, Wp, self.patch_embed.patch_shape[0],
                                self.patch_embed.patch_shape[1])[:, 1:]

        for blk in self.blocks:
            x = blk(x)

        x = self.last_norm(x)
        xp = x.permute(0, 2, 1).reshape(B, -1, Hp, Wp).contiguous()
        return xp

    def forward(self, x):
        return self.final_layer(self.deconv(self.forward_features(x)))


def make_model():
    return ViT().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 48),)


def other_inputs():
    return [(torch.randn(1, 3, 96, 64),), (torch.randn(1, 3, 80, 80),)]


def probe_inputs():
    return other_inputs()
