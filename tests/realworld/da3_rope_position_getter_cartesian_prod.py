"""Depth Anything 3's DINOv2 backbone builds the 2-D RoPE patch grid with `torch.cartesian_prod(y_coords, x_coords)`
(PositionGetter, called from `_prepare_rope` on every forward); exporting DA3 to ONNX stops with
"Exporting the operator 'aten::cartesian_prod' to ONNX opset version 20 is not supported".

Source: https://github.com/ika-rwth-aachen/ros2-depth-anything-v3-trt/issues/6
"""
from typing import Dict, Tuple

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 3: "height", 4: "width"}}
BLIND = "operators-3"


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


class DA3Backbone(nn.Module):
    """Patch embedding + RoPE positions of depth_anything_3/model/dinov2/vision_transformer.py (trimmed)."""

    def __init__(self, embed_dim=32, patch_size=14, patch_start_idx=1):
        super().__init__()
        self.patch_size = patch_size
        self.patch_start_idx = patch_start_idx
        self.patch_embed = nn.Conv2d(3, embed_dim, kernel_size=patch_size, stride=patch_size)
        self.cls_token = nn.Parameter(torch.randn(1, 1, embed_dim))
        self.rope = True
        self.position_getter = PositionGetter() if self.rope is not None else None
        self.pos_proj = nn.Linear(2, embed_dim)

    def _prepare_rope(self, B, S, H, W, device):
        pos = None
        pos_nodiff = None
        if self.rope is not None:
            pos = self.position_getter(B * S, H // self.patch_size, W // self.patch_size, device=device)
            pos = pos.reshape(B, S, pos.shape[-2], pos.shape[-1])
            pos_nodiff = torch.zeros_like(pos).to(pos.dtype)
            if self.patch_start_idx > 0:
                pos = pos + 1
                pos_special = torch.zeros(B * S, self.patch_start_idx, 2).to(device).to(pos.dtype)
                pos_special = pos_special.reshape(B, S, self.patch_start_idx, 2)
                pos = torch.cat([pos_special, pos], dim=2)
                pos_nodiff = pos_nodiff + 1
                pos_nodiff = torch.cat([pos_special, pos_nodiff], dim=2)
        return pos, pos_nodiff

    def forward(self, x):
        B, S, _, H, W = x.shape
        tokens = self.patch_embed(x.flatten(0, 1)).flatten(2).transpose(1, 2)
        tokens = torch.cat([self.cls_token.expand(B * S, -1, -1), tokens], dim=1)
        pos, pos_nodiff = self._prepare_rope(B, S, H, W, x.device)
        tokens = tokens + self.pos_proj(pos.flatten(0, 1).float())
        return F.layer_norm(tokens, tokens.shape[-1:]), pos


def make_model():
    return DA3Backbone().eval()


def example_inputs():
    return (torch.randn(1, 2, 3, 56, 70),)


def other_inputs():
    return [(torch.randn(2, 2, 3, 84, 42),), (torch.randn(3, 2, 3, 42, 98),)]


def probe_inputs():
    return other_inputs()
