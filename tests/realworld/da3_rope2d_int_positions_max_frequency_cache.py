"""Depth Anything 3 (DINOv2 backbone with 2D RoPE, VGGT-style): `RotaryPositionEmbedding2D.forward` sizes its
cos/sin table from the data with `max_position = int(positions.max()) + 1` and caches it in a Python dict keyed by
`(dim, seq_len, device, dtype)`; the patch-grid positions come from `PositionGetter` (cartesian_prod of the grid,
cached per (height, width)). The report's ONNX export script warns that `--dynamo` (torch.export) may reject the
data-dependent `int(positions.max())` in the RoPE layers, especially with dynamic shapes.

Source: https://github.com/Geekgineer/Depths-CPP/blob/3295b13a3f5373e1c52bb875f49f477187a728d8/scripts/export_da3_onnx.py
"""
from typing import Dict, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-51"


class PositionGetter:
    def __init__(self):
        self.position_cache: Dict[Tuple[int, int], torch.Tensor] = {}

    def __call__(self, batch_size: int, height: int, width: int, device: torch.device) -> torch.Tensor:
        if (height, width) not in self.position_cache:
            y_coords = torch.arange(height, device=device)
            x_coords = torch.arange(width, device=device)
            positions = torch.cartesian_prod(y_coords, x_coords)
            self.position_cache[height, width] = positions
        cached_positions = self.position_cache[height, width]
        return cached_positions.view(1, height * width, 2).expand(batch_size, -1, -1).clone()


class RotaryPositionEmbedding2D(nn.Module):
    def __init__(self, frequency: float = 100.0, scaling_factor: float = 1.0):
        super().__init__()
        self.base_frequency = frequency
        self.scaling_factor = scaling_factor
        self.frequency_cache: Dict[Tuple, Tuple[torch.Tensor, torch.Tensor]] = {}

    def _compute_frequency_components(self, dim, seq_len, device, dtype):
        cache_key = (dim, seq_len, device, dtype)
        if cache_key not in self.frequency_cache:
            exponents = torch.arange(0, dim, 2, device=device).float() / dim
            inv_freq = 1.0 / (self.base_frequency ** exponents)
            positions = torch.arange(seq_len, device=device, dtype=inv_freq.dtype)
            angles = torch.einsum("i,j->ij", positions, inv_freq)
            angles = angles.to(dtype)
            angles = torch.cat((angles, angles), dim=-1)
            cos_components = angles.cos().to(dtype)
            sin_components = angles.sin().to(dtype)
            self.frequency_cache[cache_key] = (cos_components, sin_components)
        return self.frequency_cache[cache_key]

    @staticmethod
    def _rotate_features(x):
        feature_dim = x.shape[-1]
        x1, x2 = x[..., : feature_dim // 2], x[..., feature_dim // 2:]
        return torch.cat((-x2, x1), dim=-1)

    def _apply_1d_rope(self, tokens, positions, cos_comp, sin_comp):
        cos = F.embedding(positions, cos_comp)[:, None, :, :]
        sin = F.embedding(positions, sin_comp)[:, None, :, :]
        return (tokens * cos) + (self._rotate_features(tokens) * sin)

    def forward(self, tokens, positions):
        assert tokens.size(-1) % 2 == 0, "Feature dimension must be even"
        assert positions.ndim == 3 and positions.shape[-1] == 2, "Positions must have shape (batch_size, n_tokens, 2)"
        feature_dim = tokens.size(-1) // 2
        max_position = int(positions.max()) + 1
        cos_comp, sin_comp = self._compute_frequency_components(feature_dim, max_position, tokens.device, tokens.dtype)
        vertical_features, horizontal_features = tokens.chunk(2, dim=-1)
        vertical_features = self._apply_1d_rope(vertical_features, positions[..., 0], cos_comp, sin_comp)
        horizontal_features = self._apply_1d_rope(horizontal_features, positions[..., 1], cos_comp, sin_comp)
        return torch.cat((vertical_features, horizontal_features), dim=-1)


class Attention(nn.Module):
    def __init__(self, dim, num_heads, rope=None):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)
        self.rope = rope

    def forward(self, x, pos=None):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        if self.rope is not None and pos is not None:
            q = self.rope(q, pos)
            k = self.rope(k, pos)
        x = F.scaled_dot_product_attention(q, k, v)
        x = x.transpose(1, 2).reshape(B, N, C)
        return self.proj(x)


class Block(nn.Module):
    def __init__(self, dim, num_heads, rope):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, num_heads, rope=rope)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, dim * 4), nn.GELU(), nn.Linear(dim * 4, dim))

    def forward(self, x, pos=None):
        x = x + self.attn(self.norm1(x), pos=pos)
        return x + self.mlp(self.norm2(x))


class TinyDA3(nn.Module):
    """Patch embed -> RoPE ViT blocks (patch tokens only, trimmed: no cls/register tokens) -> per-patch depth head."""

    def __init__(self, dim=64, depth=2, num_heads=4, patch_size=14):
        super().__init__()
        self.patch_size = patch_size
        self.patch_embed = nn.Conv2d(3, dim, kernel_size=patch_size, stride=patch_size)
        self.rope = RotaryPositionEmbedding2D(frequency=100.0)
        self.position_getter = PositionGetter()
        self.blocks = nn.ModuleList([Block(dim, num_heads, self.rope) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, patch_size * patch_size)

    def forward(self, image):
        B, _, H, W = image.shape
        ph, pw = H // self.patch_size, W // self.patch_size
        x = self.patch_embed(image).flatten(2).transpose(1, 2)
        pos = self.position_getter(B, ph, pw, device=image.device)
        for blk in self.blocks:
            x = blk(x, pos=pos)
        x = self.head(self.norm(x))  # B, N, p*p
        x = x.transpose(1, 2).reshape(B, self.patch_size * self.patch_size, ph, pw)
        depth = F.pixel_shuffle(x, self.patch_size)
        return F.softplus(depth)


def make_model():
    return TinyDA3().eval()


def example_inputs():
    return (torch.rand(1, 3, 84, 112),)


def other_inputs():
    return [(torch.rand(2, 3, 126, 70),), (torch.rand(1, 3, 56, 168),)]


def probe_inputs():
    return other_inputs()
