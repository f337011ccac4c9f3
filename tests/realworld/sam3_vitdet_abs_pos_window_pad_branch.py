"""SAM3 vision encoder (ViTDet trunk): `get_abs_pos` checks `assert size * size == xy_num` and branches on
`if size != h or size != w` to resize the pretrained absolute position embedding, and `window_partition` pads
only `if pad_h > 0 or pad_w > 0`; the report lists these "dynamic asserts on shape" and "conditional padding
logic" among what breaks the ONNX export of the encoder (besides `view_as_complex` in the RoPE, left out here).

Source: https://github.com/SimonZeng7108/efficientsam3/issues/7
"""
import math
from typing import Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"x": {2: "height", 3: "width"}}
BLIND = "domains-17"


def window_partition(x: Tensor, window_size: int) -> Tuple[Tensor, Tuple[int, int]]:
    B, H, W, C = x.shape

    pad_h = (window_size - H % window_size) % window_size
    pad_w = (window_size - W % window_size) % window_size
    if pad_h > 0 or pad_w > 0:
        x = F.pad(x, (0, 0, 0, pad_w, 0, pad_h))
    Hp, Wp = H + pad_h, W + pad_w

    x = x.view(B, Hp // window_size, window_size, Wp // window_size, window_size, C)
    windows = x.permute(0, 1, 3, 2, 4, 5).reshape(-1, window_size, window_size, C)
    return windows, (Hp, Wp)


def window_unpartition(
    windows: Tensor, window_size: int, pad_hw: Tuple[int, int], hw: Tuple[int, int]
) -> Tensor:
    Hp, Wp = pad_hw
    H, W = hw
    B = windows.shape[0] // (Hp * Wp // window_size // window_size)
    x = windows.reshape(
        B, Hp // window_size, Wp // window_size, window_size, window_size, -1
    )
    x = x.permute(0, 1, 3, 2, 4, 5).reshape(B, Hp, Wp, -1)

    if Hp > H or Wp > W:
        x = x[:, :H, :W, :]
    return x


def get_abs_pos(abs_pos: Tensor, has_cls_token: bool, hw: Tuple[int, int]) -> Tensor:
    h, w = hw
    if has_cls_token:
        abs_pos = abs_pos[:, 1:]

    xy_num = abs_pos.shape[1]
    size = int(math.sqrt(xy_num))
    assert size * size == xy_num

    if size != h or size != w:
        new_abs_pos = abs_pos.reshape(1, size, size, -1).permute(0, 3, 1, 2)
        new_abs_pos = F.interpolate(
            new_abs_pos,
            size=(h, w),
            mode="bicubic",
            align_corners=False,
        )
        return new_abs_pos.permute(0, 2, 3, 1)
    else:
        return abs_pos.reshape(1, h, w, -1)


class Block(nn.Module):
    def __init__(self, dim, num_heads, window_size):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, num_heads, batch_first=True)
        self.window_size = window_size

    def forward(self, x: Tensor) -> Tensor:
        shortcut = x
        x = self.norm1(x)
        if self.window_size > 0:
            H, W = x.shape[1], x.shape[2]
            x, pad_hw = window_partition(x, self.window_size)
        B_, h_, w_, C = x.shape
        x = x.reshape(B_, h_ * w_, C)
        x = self.attn(x, x, x, need_weights=False)[0].reshape(B_, h_, w_, C)
        if self.window_size > 0:
            x = window_unpartition(x, self.window_size, pad_hw, (H, W))
        return shortcut + x


class ViT(nn.Module):
    def __init__(self, patch_size=14, pretrain_img_size=112, embed_dim=32, window_size=3):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, embed_dim, kernel_size=patch_size, stride=patch_size)
        num_patches = (pretrain_img_size // patch_size) ** 2
        self.pos_embed = nn.Parameter(torch.randn(1, num_patches + 1, embed_dim) * 0.02)
        self.blocks = nn.ModuleList([Block(embed_dim, 4, window_size), Block(embed_dim, 4, 0)])

    def forward(self, x: Tensor) -> Tensor:
        x = self.patch_embed(x).permute(0, 2, 3, 1)  # B C H W -> B H W C
        h, w = x.shape[1], x.shape[2]
        x = x + get_abs_pos(self.pos_embed, True, (h, w))
        for blk in self.blocks:
            x = blk(x)
        return x.permute(0, 3, 1, 2)


def make_model():
    return ViT().eval()


def example_inputs():
    return (torch.randn(1, 3, 112, 112),)  # the pretrain size, as the encoder is exported


def other_inputs():
    return [(torch.randn(1, 3, 140, 98),), (torch.randn(1, 3, 84, 126),)]


def probe_inputs():
    return other_inputs()
