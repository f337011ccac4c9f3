"""MiDaS DPT ViT backbone: `forward_adapted_unflatten` runs the ViT through `exec(...)`, picks the block outputs from
forward hooks, and rebuilds the token grid with `nn.Unflatten(2, torch.Size([h // patch_size[1], w // patch_size[0]]))`
from the input shape; the PR says ONNX export / JIT tracing throws a type error there because `torch.Size()` wants
ints, not the tensors the tracer gives for `h` and `w` (its fix was `h.item() // ...`).

Source: https://github.com/isl-org/MiDaS/pull/220
"""
import math
import types

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-60"


class Transpose(nn.Module):
    def __init__(self, dim0, dim1):
        super(Transpose, self).__init__()
        self.dim0 = dim0
        self.dim1 = dim1

    def forward(self, x):
        x = x.transpose(self.dim0, self.dim1)
        return x


class Slice(nn.Module):
    def __init__(self, start_index=1):
        super(Slice, self).__init__()
        self.start_index = start_index

    def forward(self, x):
        return x[:, self.start_index:]


activations = {}


def get_activation(name):
    def hook(model, input, output):
        activations[name] = output

    return hook


def forward_adapted_unflatten(pretrained, x, function_name="forward_features"):
    b, c, h, w = x.shape

    exec(f"glob = pretrained.model.{function_name}(x)")

    layer_1 = pretrained.activations["1"]
    layer_2 = pretrained.activations["2"]
    layer_3 = pretrained.activations["3"]
    layer_4 = pretrained.activations["4"]

    layer_1 = pretrained.act_postprocess1[0:2](layer_1)
    layer_2 = pretrained.act_postprocess2[0:2](layer_2)
    layer_3 = pretrained.act_postprocess3[0:2](layer_3)
    layer_4 = pretrained.act_postprocess4[0:2](layer_4)

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
    if layer_3.ndim == 3:
        layer_3 = unflatten(layer_3)
    if layer_4.ndim == 3:
        layer_4 = unflatten(layer_4)

    layer_1 = pretrained.act_postprocess1[3: len(pretrained.act_postprocess1)](layer_1)
    layer_2 = pretrained.act_postprocess2[3: len(pretrained.act_postprocess2)](layer_2)
    layer_3 = pretrained.act_postprocess3[3: len(pretrained.act_postprocess3)](layer_3)
    layer_4 = pretrained.act_postprocess4[3: len(pretrained.act_postprocess4)](layer_4)

    return layer_1, layer_2, layer_3, layer_4


def forward_vit(pretrained, x):
    return forward_adapted_unflatten(pretrained, x, "forward_flex")


def _resize_pos_embed(self, posemb, gs_h, gs_w):
    posemb_tok, posemb_grid = (
        posemb[:, : self.start_index],
        posemb[0, self.start_index:],
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
    cls_tokens = self.cls_token.expand(B, -1, -1)
    x = torch.cat((cls_tokens, x), dim=1)
    x = x + pos_embed
    x = self.pos_drop(x)
    for blk in self.blocks:
        x = blk(x)
    x = self.norm(x)
    return x


class PatchEmbed(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Conv2d(3, dim, kernel_size=16, stride=16)


class VisionTransformer(nn.Module):
    """Stand-in for timm's vit_base_patch16_384 (the parts forward_flex uses)."""

    def __init__(self, dim=32, depth=4, img_size=64):
        super().__init__()
        self.patch_embed = PatchEmbed(dim)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos_embed = nn.Parameter(torch.randn(1, (img_size // 16) ** 2 + 1, dim) * 0.02)
        self.pos_drop = nn.Dropout(0.0)
        self.blocks = nn.ModuleList(
            [nn.TransformerEncoderLayer(dim, 4, dim * 2, dropout=0.0, batch_first=True) for _ in range(depth)]
        )
        self.norm = nn.LayerNorm(dim)


def _postprocess(vit_features, feat, size, tail):
    return nn.Sequential(
        Slice(1),
        Transpose(1, 2),
        nn.Unflatten(2, torch.Size([size[0] // 16, size[1] // 16])),
        nn.Conv2d(in_channels=vit_features, out_channels=feat, kernel_size=1, stride=1, padding=0),
        *tail,
    )


class DPTBackbone(nn.Module):
    def __init__(self, features=(8, 16, 24, 32), size=(64, 64), hooks=(0, 1, 2, 3), vit_features=32):
        super().__init__()
        pretrained = nn.Module()
        pretrained.model = VisionTransformer(vit_features, img_size=size[0])
        for i, hk in enumerate(hooks):
            pretrained.model.blocks[hk].register_forward_hook(get_activation(str(i + 1)))
        pretrained.activations = activations
        pretrained.act_postprocess1 = _postprocess(
            vit_features, features[0], size, [nn.ConvTranspose2d(features[0], features[0], kernel_size=4, stride=4)])
        pretrained.act_postprocess2 = _postprocess(
            vit_features, features[1], size, [nn.ConvTranspose2d(features[1], features[1], kernel_size=2, stride=2)])
        pretrained.act_postprocess3 = _postprocess(vit_features, features[2], size, [])
        pretrained.act_postprocess4 = _postprocess(
            vit_features, features[3], size, [nn.Conv2d(features[3], features[3], kernel_size=3, stride=2, padding=1)])
        pretrained.model.start_index = 1
        pretrained.model.patch_size = [16, 16]
        # We inject this function into the VisionTransformer instances so that
        # we can use it with interpolated position embeddings without modifying the library source.
        pretrained.model.forward_flex = types.MethodType(forward_flex, pretrained.model)
        pretrained.model._resize_pos_embed = types.MethodType(_resize_pos_embed, pretrained.model)
        self.pretrained = pretrained

    def forward(self, x):
        return forward_vit(self.pretrained, x)


def make_model():
    return DPTBackbone().eval()


def example_inputs():
    return (torch.randn(1, 3, 96, 128),)


def other_inputs():
    return [(torch.randn(2, 3, 64, 64),), (torch.randn(1, 3, 128, 96),)]


def probe_inputs():
    return other_inputs()
