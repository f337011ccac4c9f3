"""VGGT (feed-forward 3D reconstruction) aggregator: the 2D RoPE patch positions come from
`PositionGetter`, which builds the grid with `torch.cartesian_prod(y_coords, x_coords)`; special
(camera/register) tokens get position 0 (the per-(height, width) position cache is left out). The reporter converting VGGT to ONNX found that
`torch.cartesian_prod()` in rope.py "couldn't be converted to ONNX operations".

Source: https://github.com/facebookresearch/vggt/issues/233
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"images": {0: "batch", 3: "height", 4: "width"}}
BLIND = "operators-14"


class PositionGetter:
    def __call__(self, batch_size: int, height: int, width: int, device: torch.device) -> torch.Tensor:
        y_coords = torch.arange(height, device=device)
        x_coords = torch.arange(width, device=device)
        positions = torch.cartesian_prod(y_coords, x_coords)
        return positions.view(1, height * width, 2).expand(batch_size, -1, -1).clone()


class Aggregator(nn.Module):
    def __init__(self, embed_dim=32, patch_size=14, num_register_tokens=2, frequency=100.0):
        super().__init__()
        self.patch_size = patch_size
        self.patch_embed = nn.Conv2d(3, embed_dim, kernel_size=patch_size, stride=patch_size)
        self.camera_token = nn.Parameter(torch.randn(1, 1, embed_dim))
        self.register_token = nn.Parameter(torch.randn(1, num_register_tokens, embed_dim))
        self.patch_start_idx = 1 + num_register_tokens
        self.position_getter = PositionGetter()
        quarter = embed_dim // 4
        self.register_buffer("inv_freq", 1.0 / (frequency ** (torch.arange(quarter).float() / quarter)))

    def rope(self, tokens, pos):
        vertical, horizontal = tokens.chunk(2, dim=-1)
        out = []
        for feats, p in ((vertical, pos[..., 0]), (horizontal, pos[..., 1])):
            angles = p[..., None].to(feats.dtype) * self.inv_freq
            cos, sin = torch.cat((angles, angles), -1).cos(), torch.cat((angles, angles), -1).sin()
            x1, x2 = feats.chunk(2, dim=-1)
            out.append(feats * cos + torch.cat((-x2, x1), dim=-1) * sin)
        return torch.cat(out, dim=-1)

    def forward(self, images):
        B, S, C_in, H, W = images.shape
        images = images.view(B * S, C_in, H, W)
        patch_tokens = self.patch_embed(images).flatten(2).transpose(1, 2)
        P, C = patch_tokens.shape[1], patch_tokens.shape[2]
        special = torch.cat([self.camera_token, self.register_token], dim=1).expand(B * S, -1, -1)
        tokens = torch.cat([special, patch_tokens], dim=1)

        pos = self.position_getter(B * S, H // self.patch_size, W // self.patch_size, device=images.device)
        if self.patch_start_idx > 0:
            pos = pos + 1
            pos_special = torch.zeros(B * S, self.patch_start_idx, 2).to(images.device).to(pos.dtype)
            pos = torch.cat([pos_special, pos], dim=1)

        tokens = self.rope(tokens, pos)
        return tokens.view(B, S, self.patch_start_idx + P, C)


def make_model():
    return Aggregator().eval()


def example_inputs():
    return (torch.randn(1, 2, 3, 28, 42),)


def other_inputs():
    return [(torch.randn(2, 2, 3, 42, 56),), (torch.randn(3, 2, 3, 14, 28),)]


def probe_inputs():
    return other_inputs()
