"""DPT monocular depth (dpt_scriptable branch) ViT backbone wrapper: forward_flex resizes the position
embedding to `int(H // patch)` x `int(W // patch)` and forward unflattens the token maps with
`out_size = torch.Size((h // 16, w // 16))` / `layer.unflatten(2, out_size)`; tracing / ONNX export of
the model fails in `unflatten` ("NYI: Named tensors are not supported with the tracer").

Source: https://github.com/isl-org/DPT/issues/42
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-22"


class Slice(nn.Module):
    def __init__(self, start_index: int = 1):
        super().__init__()
        self.start_index = start_index

    def forward(self, x):
        return x[:, self.start_index :]


class Transpose(nn.Module):
    def __init__(self, dim0: int, dim1: int):
        super().__init__()
        self.dim0, self.dim1 = dim0, dim1

    def forward(self, x):
        return x.transpose(self.dim0, self.dim1)


class Attention(nn.Module):
    def __init__(self, dim, num_heads=2):
        super().__init__()
        self.num_heads = num_heads
        self.scale = (dim // num_heads) ** -0.5
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, C // self.num_heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = ((q @ k.transpose(-2, -1)) * self.scale).softmax(dim=-1)
        x = (attn @ v).transpose(1, 2).reshape(B, N, C)
        return self.proj(x)


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class TinyViT(nn.Module):
    # the timm VisionTransformer attributes forward_flex uses (pos_embed for a 64x64 / 16 = 4x4 grid)
    def __init__(self, dim=32, depth=4):
        super().__init__()
        self.patch_embed = nn.Module()
        self.patch_embed.proj = nn.Conv2d(3, dim, kernel_size=16, stride=16)
        self.cls_token = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
        self.pos_embed = nn.Parameter(torch.randn(1, 1 + 16, dim) * 0.02)
        self.pos_drop = nn.Dropout(0.0)
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])


class BackboneWrapper(nn.Module):
    def __init__(self, model, features=(16, 16, 32, 32), vit_features=32, hooks=(0, 1, 2, 3), start_index=1):
        super().__init__()
        self.model = model
        self.hooks = list(hooks)
        self.hybrid_backbone = False
        self.readout_oper1 = nn.Sequential(Slice(start_index), Transpose(1, 2))
        self.readout_oper2 = nn.Sequential(Slice(start_index), Transpose(1, 2))
        self.readout_oper3 = nn.Sequential(Slice(start_index), Transpose(1, 2))
        self.readout_oper4 = nn.Sequential(Slice(start_index), Transpose(1, 2))
        self.act_postprocess1 = nn.Sequential(nn.Conv2d(vit_features, features[0], 1),
                                              nn.ConvTranspose2d(features[0], features[0], 4, stride=4))
        self.act_postprocess2 = nn.Sequential(nn.Conv2d(vit_features, features[1], 1),
                                              nn.ConvTranspose2d(features[1], features[1], 2, stride=2))
        self.act_postprocess3 = nn.Sequential(nn.Conv2d(vit_features, features[2], 1))
        self.act_postprocess4 = nn.Sequential(nn.Conv2d(vit_features, features[3], 1),
                                              nn.Conv2d(features[3], features[3], 3, stride=2, padding=1))
        self.start_index = start_index
        self.patch_size = [16, 16]

    def _resize_pos_embed(self, posemb: torch.Tensor, gs_h: int, gs_w: int):
        posemb_tok, posemb_grid = (
            posemb[:, : self.start_index],
            posemb[0, self.start_index :],
        )

        gs_old = int(math.sqrt(len(posemb_grid)))

        posemb_grid = posemb_grid.reshape(1, gs_old, gs_old, -1).permute(0, 3, 1, 2)
        posemb_grid = F.interpolate(
            posemb_grid, size=[gs_h, gs_w], mode="bilinear", align_corners=False
        )
        posemb_grid = posemb_grid.permute(0, 2, 3, 1).reshape(1, gs_h * gs_w, -1)

        posemb = torch.cat([posemb_tok, posemb_grid], dim=1)

        return posemb

    def forward_flex(self, x):
        B, _, H, W = x.shape

        pos_embed = self._resize_pos_embed(
            self.model.pos_embed,
            int(H // self.patch_size[1]),
            int(W // self.patch_size[0]),
        )

        B = x.shape[0]

        x = self.model.patch_embed.proj(x).flatten(2).transpose(1, 2)

        cls_tokens = self.model.cls_token.expand(
            B, -1, -1
        )  # stole cls_tokens impl from Phil Wang, thanks
        x = torch.cat((cls_tokens, x), dim=1)

        x = x + pos_embed
        x = self.model.pos_drop(x)

        out_features = []
        for num, blk in enumerate(self.model.blocks):
            x = blk(x)
            if num in self.hooks:
                out_features.append(x)

        return out_features

    def forward(self, x):
        _, _, h, w = x.shape

        layers = self.forward_flex(x)

        layer_1, layer_2, layer_3, layer_4 = layers

        layer_1 = self.readout_oper1(layer_1)
        layer_2 = self.readout_oper2(layer_2)
        layer_3 = self.readout_oper3(layer_3)
        layer_4 = self.readout_oper4(layer_4)

        out_size = torch.Size((h // self.patch_size[1], w // self.patch_size[0]))

        if not self.hybrid_backbone:
            layer_1 = self.act_postprocess1(layer_1.unflatten(2, out_size))
            layer_2 = self.act_postprocess2(layer_2.unflatten(2, out_size))

        layer_3 = self.act_postprocess3(layer_3.unflatten(2, out_size))
        layer_4 = self.act_postprocess4(layer_4.unflatten(2, out_size))

        return layer_1, layer_2, layer_3, layer_4


def make_model():
    return BackboneWrapper(TinyViT()).eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 96),)


def other_inputs():
    return [(torch.randn(1, 3, 96, 64),), (torch.randn(3, 3, 128, 160),)]


def probe_inputs():
    return other_inputs()
