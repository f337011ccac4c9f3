"""MiDaS DPT (monocular depth) ViT backbone: `forward_vit` builds `nn.Unflatten(2, torch.Size([h // patch_size[1],
w // patch_size[0]]))` inside forward from the input's height and width to turn the hooked token maps back into
feature maps; exporting fails with "TypeError: unflattened_size must be tuple of ints, but found element of type
Tensor at pos 0", and casting h/w to int would hard-code the size the user wants dynamic.

Source: https://github.com/isl-org/MiDaS/issues/182
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-7"

activations = {}


def get_activation(name):
    def hook(model, input, output):
        activations[name] = output

    return hook


class Slice(nn.Module):
    def __init__(self, start_index=1):
        super(Slice, self).__init__()
        self.start_index = start_index

    def forward(self, x):
        return x[:, self.start_index :]


class Transpose(nn.Module):
    def __init__(self, dim0, dim1):
        super(Transpose, self).__init__()
        self.dim0 = dim0
        self.dim1 = dim1

    def forward(self, x):
        x = x.transpose(self.dim0, self.dim1)
        return x


class VisionTransformer(nn.Module):
    def __init__(self, img_size=64, patch_size=16, embed_dim=32, depth=2):
        super().__init__()
        self.patch_size = (patch_size, patch_size)
        self.start_index = 1
        self.patch_embed = nn.Module()
        self.patch_embed.proj = nn.Conv2d(3, embed_dim, kernel_size=patch_size, stride=patch_size)
        self.cls_token = nn.Parameter(torch.randn(1, 1, embed_dim))
        self.pos_embed = nn.Parameter(torch.randn(1, (img_size // patch_size) ** 2 + 1, embed_dim))
        self.pos_drop = nn.Dropout(0.0)
        self.blocks = nn.ModuleList(nn.Sequential(nn.LayerNorm(embed_dim), nn.Linear(embed_dim, embed_dim), nn.GELU())
                                    for _ in range(depth))
        self.norm = nn.LayerNorm(embed_dim)

    def _resize_pos_embed(self, posemb, gs_h, gs_w):
        posemb_tok, posemb_grid = (
            posemb[:, : self.start_index],
            posemb[0, self.start_index :],
        )

        gs_old = int(math.sqrt(len(posemb_grid)))

        posemb_grid = posemb_grid.reshape(1, gs_old, gs_old, -1).permute(0, 3, 1, 2)
        posemb_grid = F.interpolate(posemb_grid, size=(gs_h, gs_w), mode="bilinear")
        posemb_grid = posemb_grid.permute(0, 2, 3, 1).reshape(1, gs_h * gs_w, -1)

        posemb = torch.cat([posemb_tok, posemb_grid], dim=1)

        return posemb

    def forward_flex(self, x):
        b, c, h, w = x.shape

        pos_embed = self._resize_pos_embed(
            self.pos_embed, h // self.patch_size[1], w // self.patch_size[0]
        )

        B = x.shape[0]

        x = self.patch_embed.proj(x).flatten(2).transpose(1, 2)

        cls_tokens = self.cls_token.expand(
            B, -1, -1
        )  # stole cls_tokens impl from Phil Wang, thanks
        x = torch.cat((cls_tokens, x), dim=1)

        x = x + pos_embed
        x = self.pos_drop(x)

        for blk in self.blocks:
            x = blk(x)

        x = self.norm(x)

        return x


class DPTBackbone(nn.Module):
    def __init__(self, size=(64, 64), features=(16, 24), embed_dim=32):
        super().__init__()
        self.model = VisionTransformer(img_size=size[0], embed_dim=embed_dim)
        self.model.blocks[0].register_forward_hook(get_activation("1"))
        self.model.blocks[1].register_forward_hook(get_activation("2"))
        self.activations = activations
        self.act_postprocess1 = nn.Sequential(
            Slice(1), Transpose(1, 2), nn.Unflatten(2, torch.Size([size[0] // 16, size[1] // 16])),
            nn.Conv2d(embed_dim, features[0], kernel_size=1),
            nn.ConvTranspose2d(features[0], features[0], kernel_size=4, stride=4),
        )
        self.act_postprocess2 = nn.Sequential(
            Slice(1), Transpose(1, 2), nn.Unflatten(2, torch.Size([size[0] // 16, size[1] // 16])),
            nn.Conv2d(embed_dim, features[1], kernel_size=1),
            nn.ConvTranspose2d(features[1], features[1], kernel_size=2, stride=2),
        )

    def forward(self, x):
        return forward_vit(self, x)


def forward_vit(pretrained, x):
    b, c, h, w = x.shape

    glob = pretrained.model.forward_flex(x)

    layer_1 = pretrained.activations["1"]
    layer_2 = pretrained.activations["2"]

    layer_1 = pretrained.act_postprocess1[0:2](layer_1)
    layer_2 = pretrained.act_postprocess2[0:2](layer_2)

    unflatten = nn.Sequential(
        nn.Unflatten(
            2,
            torch.Size(
                [
                    h // pretrained.model.patch_size[1],
                    w // pretrained.model.patch_size[0],
                ]
            ),
        )
    )

    if layer_1.ndim == 3:
        layer_1 = unflatten(layer_1)
    if layer_2.ndim == 3:
        layer_2 = unflatten(layer_2)

    layer_1 = pretrained.act_postprocess1[3 : len(pretrained.act_postprocess1)](layer_1)
    layer_2 = pretrained.act_postprocess2[3 : len(pretrained.act_postprocess2)](layer_2)

    return layer_1, layer_2


def make_model():
    return DPTBackbone().eval()


def example_inputs():
    return (torch.randn(1, 3, 96, 128),)


def other_inputs():
    return [(torch.randn(2, 3, 64, 160),), (torch.randn(1, 3, 128, 80),)]


def probe_inputs():
    return other_inputs()
