"""VGGT's DPT depth head adds a sinusoidal UV position embedding to each feature map
(`_apply_pos_embed` -> `create_uv_grid` -> `position_grid_to_embed` -> `make_sincos_pos_embed`), where the
frequency vector is built with `dtype=torch.float32 if device.type == "mps" else torch.double` and then
`torch.einsum("m,d->md", pos, omega)` mixes the float32 grid with the float64 omega; the browser port's first
ONNX export loaded into onnxruntime with "a mixed float32/float64 Einsum" and needed an export-only helper
that keeps omega in the grid's dtype.

Source: https://github.com/koernergb/vggt-in-browser/blob/main/bench/reports/m1-first-export.md
"""
import torch
import torch.nn as nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"x": {0: "frames"}}
BLIND = "domains-36"


def make_sincos_pos_embed(embed_dim: int, pos: torch.Tensor, omega_0: float = 100) -> torch.Tensor:
    assert embed_dim % 2 == 0
    device = pos.device
    omega = torch.arange(embed_dim // 2, dtype=torch.float32 if device.type == "mps" else torch.double, device=device)
    omega /= embed_dim / 2.0
    omega = 1.0 / omega_0**omega  # (D/2,)

    pos = pos.reshape(-1)  # (M,)
    out = torch.einsum("m,d->md", pos, omega)  # (M, D/2), outer product

    emb_sin = torch.sin(out)  # (M, D/2)
    emb_cos = torch.cos(out)  # (M, D/2)

    emb = torch.cat([emb_sin, emb_cos], dim=1)  # (M, D)
    return emb.float()


def position_grid_to_embed(pos_grid: torch.Tensor, embed_dim: int, omega_0: float = 100) -> torch.Tensor:
    H, W, grid_dim = pos_grid.shape
    assert grid_dim == 2
    pos_flat = pos_grid.reshape(-1, grid_dim)  # Flatten to (H*W, 2)

    emb_x = make_sincos_pos_embed(embed_dim // 2, pos_flat[:, 0], omega_0=omega_0)
    emb_y = make_sincos_pos_embed(embed_dim // 2, pos_flat[:, 1], omega_0=omega_0)

    emb = torch.cat([emb_x, emb_y], dim=-1)  # [1, H*W, D]
    return emb.view(H, W, embed_dim)  # [H, W, D]


def create_uv_grid(width: int, height: int, aspect_ratio: float = None, dtype: torch.dtype = None,
                   device: torch.device = None) -> torch.Tensor:
    if aspect_ratio is None:
        aspect_ratio = float(width) / float(height)

    diag_factor = (aspect_ratio**2 + 1.0) ** 0.5
    span_x = aspect_ratio / diag_factor
    span_y = 1.0 / diag_factor

    left_x = -span_x * (width - 1) / width
    right_x = span_x * (width - 1) / width
    top_y = -span_y * (height - 1) / height
    bottom_y = span_y * (height - 1) / height

    x_coords = torch.linspace(left_x, right_x, steps=width, dtype=dtype, device=device)
    y_coords = torch.linspace(top_y, bottom_y, steps=height, dtype=dtype, device=device)

    uu, vv = torch.meshgrid(x_coords, y_coords, indexing="xy")
    uv_grid = torch.stack((uu, vv), dim=-1)
    return uv_grid


class DPTHead(nn.Module):
    """The position-embedding part of the DPT head, around one projected feature level."""

    def __init__(self, dim_in=64, out_channels=32, img_size=112):
        super().__init__()
        self.img_size = img_size
        self.project = nn.Conv2d(dim_in, out_channels, kernel_size=1)
        self.head = nn.Conv2d(out_channels, 2, kernel_size=3, padding=1)

    def _apply_pos_embed(self, x: torch.Tensor, W: int, H: int, ratio: float = 0.1) -> torch.Tensor:
        patch_w = x.shape[-1]
        patch_h = x.shape[-2]
        pos_embed = create_uv_grid(patch_w, patch_h, aspect_ratio=W / H, dtype=x.dtype, device=x.device)
        pos_embed = position_grid_to_embed(pos_embed, x.shape[1])
        pos_embed = pos_embed * ratio
        pos_embed = pos_embed.permute(2, 0, 1)[None].expand(x.shape[0], -1, -1, -1)
        return x + pos_embed

    def forward(self, x):
        # x: (B*S, C, patch_h, patch_w) patch tokens already reshaped to a map
        x = self.project(x)
        x = self._apply_pos_embed(x, self.img_size, self.img_size)
        return self.head(x)


def make_model():
    return DPTHead().eval()


def example_inputs():
    return (torch.randn(2, 64, 8, 8),)


def other_inputs():
    return [(torch.randn(3, 64, 8, 8),), (torch.randn(1, 64, 8, 8),)]


def probe_inputs():
    return other_inputs()
