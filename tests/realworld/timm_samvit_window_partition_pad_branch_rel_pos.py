"""timm's SAM ViT (vision_transformer_sam): `window_partition` pads only `if pad_h > 0 or pad_w > 0` and
`window_unpartition` crops only `if Hp > H or Wp > W`, and the global-attention blocks resize the relative
position tables in `get_rel_pos` when `rel_pos.shape[0] != max_rel_dist`; the commit "Fix fx trace for sam vit"
makes the pad/crop unconditional because these Python branches on the padded sizes could not be traced. Here the
image size is the dynamic dim (the model resamples its position tables for other sizes).

Source: https://github.com/huggingface/pytorch-image-models/commit/97555a82fdfc3aaeccf87af31ed6c544c58bee2b
"""
from typing import Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"x": {2: "height", 3: "width"}}
BLIND = "domains-61"


def get_rel_pos(q_size: int, k_size: int, rel_pos: torch.Tensor) -> torch.Tensor:
    max_rel_dist = int(2 * max(q_size, k_size) - 1)
    # Interpolate rel pos if needed.
    if rel_pos.shape[0] != max_rel_dist:
        # Interpolate rel pos.
        rel_pos_resized = F.interpolate(
            rel_pos.reshape(1, rel_pos.shape[0], -1).permute(0, 2, 1),
            size=max_rel_dist,
            mode="linear",
        )
        rel_pos_resized = rel_pos_resized.reshape(-1, max_rel_dist).permute(1, 0)
    else:
        rel_pos_resized = rel_pos

    # Scale the coords with short length if shapes for q and k are different.
    q_coords = torch.arange(q_size)[:, None] * max(k_size / q_size, 1.0)
    k_coords = torch.arange(k_size)[None, :] * max(q_size / k_size, 1.0)
    relative_coords = (q_coords - k_coords) + (k_size - 1) * max(q_size / k_size, 1.0)

    return rel_pos_resized[relative_coords.long()]


def get_decomposed_rel_pos_bias(
    q: torch.Tensor,
    rel_pos_h: torch.Tensor,
    rel_pos_w: torch.Tensor,
    q_size: Tuple[int, int],
    k_size: Tuple[int, int],
) -> torch.Tensor:
    q_h, q_w = q_size
    k_h, k_w = k_size
    Rh = get_rel_pos(q_h, k_h, rel_pos_h)
    Rw = get_rel_pos(q_w, k_w, rel_pos_w)

    B, _, dim = q.shape
    r_q = q.reshape(B, q_h, q_w, dim)
    rel_h = torch.einsum("bhwc,hkc->bhwk", r_q, Rh)
    rel_w = torch.einsum("bhwc,wkc->bhwk", r_q, Rw)

    attn_bias = rel_h[:, :, :, :, None] + rel_w[:, :, :, None, :]
    return attn_bias.reshape(-1, q_h * q_w, k_h * k_w)


class Attention(nn.Module):
    def __init__(self, dim, num_heads=2, qkv_bias=True, use_rel_pos: bool = False,
                 input_size: Optional[Tuple[int, int]] = None):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.scale = self.head_dim ** -0.5
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.proj = nn.Linear(dim, dim)
        self.use_rel_pos = use_rel_pos
        if self.use_rel_pos:
            self.rel_pos_h = nn.Parameter(torch.randn(2 * input_size[0] - 1, self.head_dim) * 0.02)
            self.rel_pos_w = nn.Parameter(torch.randn(2 * input_size[1] - 1, self.head_dim) * 0.02)

    def forward(self, x):
        B, H, W, _ = x.shape
        x = x.reshape(B, H * W, -1)
        qkv = self.qkv(x).reshape(B, H * W, 3, self.num_heads, -1).permute(2, 0, 3, 1, 4)
        # qkv with shape (3, B, nHead, H * W, C)
        q, k, v = qkv.reshape(3, B * self.num_heads, H * W, -1).unbind(0)

        if self.use_rel_pos:
            attn_bias = get_decomposed_rel_pos_bias(q, self.rel_pos_h, self.rel_pos_w, (H, W), (H, W))
        else:
            attn_bias = None

        q = q * self.scale
        attn = q @ k.transpose(-2, -1)
        if attn_bias is not None:
            attn = attn + attn_bias
        attn = attn.softmax(dim=-1)
        x = attn @ v

        x = x.view(B, self.num_heads, H * W, -1).transpose(1, 2).reshape(B, H * W, -1)
        x = self.proj(x)
        x = x.view(B, H, W, -1)
        return x


class Block(nn.Module):
    def __init__(self, dim, num_heads, window_size=0, input_size=None):
        super().__init__()
        self.window_size = window_size
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(
            dim,
            num_heads=num_heads,
            use_rel_pos=True,
            input_size=input_size if window_size == 0 else (window_size, window_size),
        )
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, dim * 2), nn.GELU(), nn.Linear(dim * 2, dim))

    def forward(self, x):
        B, H, W, _ = x.shape

        shortcut = x
        x = self.norm1(x)
        # Window partition
        pad_hw: Optional[Tuple[int, int]] = None
        if self.window_size > 0:
            x, pad_hw = window_partition(x, self.window_size)

        x = self.attn(x)

        # Reverse window partition
        if self.window_size > 0:
            x = window_unpartition(x, self.window_size, (H, W), pad_hw)

        x = shortcut + x

        x = x.reshape(B, H * W, -1)  # MLP is faster for N, L, C tensor
        x = x + self.mlp(self.norm2(x))
        x = x.reshape(B, H, W, -1)

        return x


def window_partition(x: torch.Tensor, window_size: int) -> Tuple[torch.Tensor, Tuple[int, int]]:
    B, H, W, C = x.shape

    pad_h = (window_size - H % window_size) % window_size
    pad_w = (window_size - W % window_size) % window_size
    if pad_h > 0 or pad_w > 0:
        x = F.pad(x, (0, 0, 0, pad_w, 0, pad_h))
    Hp, Wp = H + pad_h, W + pad_w

    x = x.view(B, Hp // window_size, window_size, Wp // window_size, window_size, C)
    windows = x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, window_size, window_size, C)
    return windows, (Hp, Wp)


def window_unpartition(
    windows: torch.Tensor, window_size: int, hw: Tuple[int, int], pad_hw: Optional[Tuple[int, int]] = None,
) -> torch.Tensor:
    Hp, Wp = pad_hw if pad_hw is not None else hw
    H, W = hw
    B = windows.shape[0] // (Hp * Wp // window_size // window_size)
    x = windows.view(B, Hp // window_size, Wp // window_size, window_size, window_size, -1)
    x = x.permute(0, 1, 3, 2, 4, 5).contiguous().view(B, Hp, Wp, -1)

    if Hp > H or Wp > W:
        x = x[:, :H, :W, :].contiguous()
    return x


class VisionTransformerSAM(nn.Module):
    def __init__(self, img_size=64, patch_size=8, embed_dim=32, num_heads=2, window_size=3, neck_chans=16):
        super().__init__()
        grid_size = (img_size // patch_size, img_size // patch_size)
        self.patch_embed = nn.Conv2d(3, embed_dim, kernel_size=patch_size, stride=patch_size)
        self.blocks = nn.Sequential(
            Block(embed_dim, num_heads, window_size=window_size, input_size=grid_size),
            Block(embed_dim, num_heads, window_size=0, input_size=grid_size),  # global attn
        )
        self.neck = nn.Sequential(nn.Conv2d(embed_dim, neck_chans, kernel_size=1, bias=False))

    def forward(self, x):
        x = self.patch_embed(x).permute(0, 2, 3, 1)  # NHWC
        x = self.blocks(x)
        x = self.neck(x.permute(0, 3, 1, 2))
        return x


def make_model():
    return VisionTransformerSAM().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(1, 3, 72, 80),), (torch.randn(1, 3, 48, 56),)]


def probe_inputs():
    return other_inputs()
