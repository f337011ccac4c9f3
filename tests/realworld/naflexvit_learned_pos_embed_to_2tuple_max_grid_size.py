"""timm NaFlexVit (SigLIP2-style NaFlex vision embedding model), standard 2D image path: `NaFlexEmbeds`
resizes its learned 2D position table to the patch grid with
`_interp_size = to_2tuple(max(grid_size)) if self.pos_embed_ar_preserving else grid_size`, where
`grid_size = x.shape[-2:]` of the patch conv output. The commit "Fix small tracing issue for 2d learned embed
w/ ar preserving" replaces it with `L = max(grid_size); _interp_size = L, L` (the Python `max` of the traced
sizes is not a plain int, so `to_2tuple`'s `isinstance(x, Iterable)` check tries to iterate it).
(The code before that commit; a 2-block ViT stands in for the trunk.)

Source: https://github.com/huggingface/pytorch-image-models/commit/8d2e5f1f564da266dfde5b15e5b0603605b4a1ce
"""
import collections.abc
from itertools import repeat
from typing import List

import torch
from torch import nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-65"


def _ntuple(n):
    def parse(x):
        if isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
            return tuple(x)
        return tuple(repeat(x, n))
    return parse


to_2tuple = _ntuple(2)


class NaFlexEmbeds(nn.Module):
    def __init__(self, patch_size=16, in_chans=3, embed_dim=64, pos_embed_grid_size=(16, 16),
                 pos_embed_ar_preserving=True, pos_embed_interp_mode='bicubic'):
        super().__init__()
        self.patch_size = to_2tuple(patch_size)
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)
        self.flatten = True
        self.norm = nn.Identity()
        self.pos_embed_ar_preserving = pos_embed_ar_preserving
        self.pos_embed_interp_mode = pos_embed_interp_mode
        h, w = pos_embed_grid_size
        self.pos_embed = nn.Parameter(torch.randn(1, h, w, embed_dim) * .02)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, embed_dim))

    def _apply_learned_pos_embed(
            self,
            x: torch.Tensor,
            grid_size: List[int],
    ) -> None:
        orig_h, orig_w = self.pos_embed.shape[1:3]
        if grid_size[0] == orig_h and grid_size[1] == orig_w:
            # No resize needed, just flatten
            pos_embed_flat = self.pos_embed.reshape(1, orig_h * orig_w, -1)
        else:
            # Resize if needed - directly using F.interpolate
            _interp_size = to_2tuple(max(grid_size)) if self.pos_embed_ar_preserving else grid_size
            pos_embed_flat = F.interpolate(
                self.pos_embed.permute(0, 3, 1, 2).float(),  # B,C,H,W
                size=_interp_size,
                mode=self.pos_embed_interp_mode,
                align_corners=False,
                antialias=True,
            )[:, :, :grid_size[0], :grid_size[1]].flatten(2).transpose(1, 2)
        pos_embed_flat = pos_embed_flat.to(dtype=x.dtype)

        x.add_(pos_embed_flat)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B = x.shape[0]
        x = self.proj(x)
        grid_size = x.shape[-2:]
        if self.flatten:
            x = x.flatten(2).transpose(1, 2)  # NCHW -> NLC
        x = self.norm(x)
        self._apply_learned_pos_embed(x, grid_size=grid_size)
        x = torch.cat([self.cls_token.expand(B, -1, -1), x], dim=1)
        return x


class NaFlexVit(nn.Module):
    def __init__(self, embed_dim=64, depth=2, num_heads=4, num_classes=10):
        super().__init__()
        self.embeds = NaFlexEmbeds(embed_dim=embed_dim)
        layer = nn.TransformerEncoderLayer(embed_dim, num_heads, embed_dim * 4, dropout=0.0,
                                           batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(embed_dim)
        self.head = nn.Linear(embed_dim, num_classes)

    def forward(self, x):
        x = self.embeds(x)
        x = self.norm(self.blocks(x))
        return self.head(x[:, 1:].mean(dim=1))


def make_model():
    return NaFlexVit().eval()


def example_inputs():
    return (torch.randn(2, 3, 224, 160),)


def other_inputs():
    return [(torch.randn(3, 3, 192, 288),), (torch.randn(1, 3, 128, 128),)]


def probe_inputs():
    return other_inputs()
