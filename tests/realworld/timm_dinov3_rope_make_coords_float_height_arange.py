"""timm's DINOv3 port (Eva ViT with `RotaryEmbeddingDinoV3`, dynamic_img_size): every forward rebuilds the RoPE
grid from the patch grid size in `_make_coords` (`torch.arange(0.5, height)`, `h_denom = float(height)`, ...);
the commit moves `make_coords` out of the module into a free function wrapped with `torch.fx.wrap` /
`register_notrace_function` "so it can be wrapped for fx", as the Python math on the grid size could not be
traced. Here the image size is the dynamic dim.

Source: https://github.com/huggingface/pytorch-image-models/commit/33bd6ad9b6107ba09894e78768564e3af03aac18
"""
import math
from typing import List, Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {2: "height", 3: "width"}}
BLIND = "domains-61"


def rope_rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat([-x2, x1], dim=-1)


def rot(x):
    return torch.stack([-x[..., 1::2], x[..., ::2]], -1).reshape(x.shape)


def apply_rot_embed_cat(x: torch.Tensor, emb: torch.Tensor, half: bool = False) -> torch.Tensor:
    sin_emb, cos_emb = emb.tensor_split(2, -1)
    if half:
        return x * cos_emb + rope_rotate_half(x) * sin_emb
    return x * cos_emb + rot(x) * sin_emb


class RotaryEmbeddingDinoV3(nn.Module):
    def __init__(self, dim: int, temperature: Optional[float] = 100.0, normalize_coords: str = "separate",
                 grid_offset: float = 0.0, grid_indexing: str = "ij", rotate_half: bool = True):
        super().__init__()
        self.dim = dim
        self.rotate_half = rotate_half
        self.temperature = float(temperature)
        self.normalize_coords = normalize_coords
        self.grid_offset = grid_offset
        self.grid_indexing = grid_indexing
        periods = self._compute_periods()
        self.register_buffer("periods", periods, persistent=False)

    def _compute_periods(self, device: torch.device = 'cpu', dtype: torch.dtype = torch.float32) -> torch.Tensor:
        dim = self.dim // 4
        exponents = 2.0 * torch.arange(dim, device=device, dtype=dtype) / (self.dim // 2)
        periods = self.temperature ** exponents
        return periods

    def _make_coords(
            self,
            height: int,
            width: int,
            device: torch.device = 'cpu',
            dtype: torch.dtype = torch.float32,
    ) -> torch.Tensor:
        # 0.5-centered indices with optional offset
        coords_h = torch.arange(0.5, height, device=device, dtype=dtype) + self.grid_offset
        coords_w = torch.arange(0.5, width, device=device, dtype=dtype) + self.grid_offset

        # Normalization denominators
        if self.normalize_coords == "max":
            denom = float(max(height, width))
            h_denom = denom
            w_denom = denom
        elif self.normalize_coords == "min":
            denom = float(min(height, width))
            h_denom = denom
            w_denom = denom
        elif self.normalize_coords == "separate":
            h_denom = float(height)
            w_denom = float(width)
        else:
            raise ValueError(f"Unknown normalize_coords: {self.normalize_coords}")

        # Normalize to [0, 1]
        coords_h = coords_h / h_denom
        coords_w = coords_w / w_denom

        # Create grid then map to [-1, 1]
        if self.grid_indexing == "xy":
            grid_w, grid_h = torch.meshgrid(coords_w, coords_h, indexing="xy")
            coords = torch.stack([grid_h, grid_w], dim=-1)
        else:
            coords = torch.stack(torch.meshgrid(coords_h, coords_w, indexing="ij"), dim=-1)
        coords = coords.flatten(0, 1)  # (HW, 2)
        coords = 2.0 * coords - 1.0
        return coords

    def _get_pos_embed_from_coords(self, coords: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        dim = self.dim // 4
        device = self.periods.device
        dtype = self.periods.dtype
        assert self.periods.numel() == dim

        coords = coords[:, :, None].to(device=device, dtype=dtype)
        angles = 2 * math.pi * coords / self.periods[None, None, :]
        angles = angles.flatten(1)  # (HW, dim // 2)

        if self.rotate_half:
            angles = angles.tile(2)
        else:
            angles = angles.repeat_interleave(2, dim=-1)

        sin = torch.sin(angles)
        cos = torch.cos(angles)
        return sin, cos

    def _create_embed(self, feat_shape: List[int], no_aug: bool = False) -> torch.Tensor:
        H, W = feat_shape
        coords = self._make_coords(H, W)  # (HW, 2)
        sin, cos = self._get_pos_embed_from_coords(coords)
        rope_embed = torch.cat([sin, cos], dim=-1)  # (HW, 2*dim)
        return rope_embed

    def get_embed(self, shape: Optional[List[int]] = None) -> torch.Tensor:
        return self._create_embed(shape)


class EvaAttention(nn.Module):
    def __init__(self, dim, num_heads=2, num_prefix_tokens=1, rotate_half=True):
        super().__init__()
        self.num_heads = num_heads
        self.num_prefix_tokens = num_prefix_tokens
        self.rotate_half = rotate_half
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, rope: Optional[torch.Tensor] = None):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, -1).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)  # B, num_heads, N, head_dim

        if rope is not None:
            npt = self.num_prefix_tokens
            half = getattr(self, 'rotate_half', False)
            q = torch.cat([q[:, :, :npt, :], apply_rot_embed_cat(q[:, :, npt:, :], rope, half=half)], dim=2).type_as(v)
            k = torch.cat([k[:, :, :npt, :], apply_rot_embed_cat(k[:, :, npt:, :], rope, half=half)], dim=2).type_as(v)

        x = F.scaled_dot_product_attention(q, k, v)
        x = x.transpose(1, 2).reshape(B, N, C)
        x = self.proj(x)
        return x


class Eva(nn.Module):
    def __init__(self, embed_dim=32, num_heads=2, patch_size=8):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, embed_dim, kernel_size=patch_size, stride=patch_size)
        self.cls_token = nn.Parameter(torch.randn(1, 1, embed_dim) * 0.02)
        self.rope = RotaryEmbeddingDinoV3(dim=embed_dim // num_heads, temperature=100.0)
        self.norm1 = nn.LayerNorm(embed_dim)
        self.attn = EvaAttention(embed_dim, num_heads=num_heads)
        self.norm = nn.LayerNorm(embed_dim)

    def _pos_embed(self, x) -> Tuple[torch.Tensor, Optional[torch.Tensor]]:
        B, H, W, C = x.shape
        x = x.view(B, -1, C)
        rot_pos_embed = self.rope.get_embed(shape=(H, W)) if self.rope is not None else None
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1)
        return x, rot_pos_embed

    def forward(self, x):
        x = self.patch_embed(x).permute(0, 2, 3, 1)  # NHWC (dynamic_img_size)
        x, rot_pos_embed = self._pos_embed(x)
        x = x + self.attn(self.norm1(x), rope=rot_pos_embed)
        return self.norm(x)


def make_model():
    return Eva().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(2, 3, 48, 80),), (torch.randn(2, 3, 96, 40),)]


def probe_inputs():
    return other_inputs()
