"""kornia's `crop_by_transform_mat` picks `warp_perspective` or `warp_affine` with
`is_perspective = bool(dst_trans_src[:, 2, :2].abs().gt(1e-6).any())`; torch.export "cannot guard on the
data-dependent affine/perspective dispatch" (GuardOnDataDependentSymNode), so the commit replaces the branch
with an always-warp_perspective path. Here a spatial-transformer crop head predicts a pixel affine matrix and
crops fixed-size patches through it. (kornia helpers copied in their eager form; docstrings/checks trimmed.)

Source: https://github.com/kornia/kornia/commit/54d6adce36272b4caf79f7aeed2c6f9cc018498d
"""
from typing import Optional, Tuple

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"images": {0: "batch"}}
BLIND = "domains-52"


def _inverse_3x3_closed_form(input: torch.Tensor) -> torch.Tensor:
    col_a = input[..., :, 0]
    col_b = input[..., :, 1]
    col_c = input[..., :, 2]
    row0 = torch.linalg.cross(col_b, col_c, dim=-1)
    row1 = torch.linalg.cross(col_c, col_a, dim=-1)
    row2 = torch.linalg.cross(col_a, col_b, dim=-1)
    det = (col_a * row0).sum(-1)
    return torch.stack([row0, row1, row2], dim=-2) / det[..., None, None]


def convert_affinematrix_to_homography(A: torch.Tensor) -> torch.Tensor:
    H: torch.Tensor = F.pad(A, [0, 0, 0, 1], "constant", value=0.0)
    H[..., -1, -1] += 1.0
    return H


def normal_transform_pixel(height: int, width: int, eps: float = 1e-14, device=None, dtype=None) -> torch.Tensor:
    width_denom: float = eps if width == 1 else width - 1.0
    height_denom: float = eps if height == 1 else height - 1.0
    sx: float = 2.0 / width_denom
    sy: float = 2.0 / height_denom
    tr_mat = torch.tensor([[sx, 0.0, -1.0], [0.0, sy, -1.0], [0.0, 0.0, 1.0]], device=device, dtype=dtype)
    return tr_mat.unsqueeze(0)  # 1x3x3


def normalize_homography(dst_pix_trans_src_pix: torch.Tensor, dsize_src: Tuple[int, int],
                         dsize_dst: Tuple[int, int]) -> torch.Tensor:
    src_h, src_w = dsize_src
    dst_h, dst_w = dsize_dst
    src_norm_trans_src_pix: torch.Tensor = normal_transform_pixel(src_h, src_w).to(dst_pix_trans_src_pix)
    src_pix_trans_src_norm = _inverse_3x3_closed_form(src_norm_trans_src_pix)
    dst_norm_trans_dst_pix: torch.Tensor = normal_transform_pixel(dst_h, dst_w).to(dst_pix_trans_src_pix)
    return dst_norm_trans_dst_pix @ (dst_pix_trans_src_pix @ src_pix_trans_src_norm)


def create_meshgrid(height: int, width: int, normalized_coordinates: bool = True, device=None, dtype=None):
    xs: torch.Tensor = torch.linspace(0, width - 1, width, device=device, dtype=dtype)
    ys: torch.Tensor = torch.linspace(0, height - 1, height, device=device, dtype=dtype)
    if normalized_coordinates:
        xs = (xs / (width - 1) - 0.5) * 2
        ys = (ys / (height - 1) - 0.5) * 2
    base_grid: torch.Tensor = torch.stack(torch.meshgrid([xs, ys], indexing="ij"), dim=-1)  # WxHx2
    return base_grid.permute(1, 0, 2).unsqueeze(0)  # 1xHxWx2


def warp_perspective(src, M, dsize, mode="bilinear", padding_mode="zeros", align_corners=True):
    B, _, H, W = src.size()
    h_out, w_out = dsize
    dst_norm_trans_src_norm: torch.Tensor = normalize_homography(M, (H, W), (h_out, w_out))  # Bx3x3
    src_norm_trans_dst_norm = _inverse_3x3_closed_form(dst_norm_trans_src_norm)  # Bx3x3
    grid = create_meshgrid(h_out, w_out, normalized_coordinates=True, device=src.device).to(src.dtype)
    gx0, gy0 = grid[..., 0], grid[..., 1]  # (1, H, W)
    m = src_norm_trans_dst_norm  # (B, 3, 3)
    denom = m[:, 2, 0, None, None] * gx0 + m[:, 2, 1, None, None] * gy0 + m[:, 2, 2, None, None]
    gx = (m[:, 0, 0, None, None] * gx0 + m[:, 0, 1, None, None] * gy0 + m[:, 0, 2, None, None]) / denom
    gy = (m[:, 1, 0, None, None] * gx0 + m[:, 1, 1, None, None] * gy0 + m[:, 1, 2, None, None]) / denom
    grid = torch.stack([gx, gy], dim=-1)  # (B, H, W, 2)
    return F.grid_sample(src, grid, align_corners=align_corners, mode=mode, padding_mode=padding_mode)


def warp_affine(src, M, dsize, mode="bilinear", padding_mode="zeros", align_corners=True):
    B, C, H, W = src.size()
    B_M = M.shape[0]
    M_3x3: torch.Tensor = convert_affinematrix_to_homography(M)
    dst_norm_trans_src_norm: torch.Tensor = normalize_homography(M_3x3, (H, W), dsize)
    src_norm_trans_dst_norm = _inverse_3x3_closed_form(dst_norm_trans_src_norm)
    h_out, w_out = dsize
    if align_corners:
        xs = torch.linspace(-1.0, 1.0, w_out, device=src.device, dtype=src.dtype)
        ys = torch.linspace(-1.0, 1.0, h_out, device=src.device, dtype=src.dtype)
    else:
        xs = torch.linspace(-1.0 + 1.0 / w_out, 1.0 - 1.0 / w_out, w_out, device=src.device, dtype=src.dtype)
        ys = torch.linspace(-1.0 + 1.0 / h_out, 1.0 - 1.0 / h_out, h_out, device=src.device, dtype=src.dtype)
    base_y, base_x = torch.meshgrid(ys, xs, indexing="ij")  # (H, W)
    m = src_norm_trans_dst_norm  # (B_M, 3, 3); affine, so the bottom row is [0, 0, 1]
    gx = m[:, 0, 0, None, None] * base_x + m[:, 0, 1, None, None] * base_y + m[:, 0, 2, None, None]
    gy = m[:, 1, 0, None, None] * base_x + m[:, 1, 1, None, None] * base_y + m[:, 1, 2, None, None]
    grid = torch.stack([gx, gy], dim=-1)  # (B_M, H, W, 2)
    if B_M == 1 and B > 1:
        grid = grid.expand(B, -1, -1, -1)
    return F.grid_sample(src, grid, align_corners=align_corners, mode=mode, padding_mode=padding_mode)


def crop_by_transform_mat(
    input_tensor: torch.Tensor,
    transform: torch.Tensor,
    out_size: Tuple[int, int],
    mode: str = "bilinear",
    padding_mode: str = "zeros",
    align_corners: bool = True,
) -> torch.Tensor:
    if transform.shape[-2:] == (2, 3):
        transform = convert_affinematrix_to_homography(transform)

    # simulate broadcasting
    dst_trans_src = torch.as_tensor(
        transform.expand(input_tensor.shape[0], -1, -1), device=input_tensor.device, dtype=input_tensor.dtype
    )

    # warp_affine and warp_perspective build different sampling grids for align_corners=False,
    # so affine transforms must keep the affine path to preserve the crop values users rely on;
    # only genuinely projective transforms (non-parallel boxes) need the full perspective warp.
    is_perspective = bool(dst_trans_src[:, 2, :2].abs().gt(1e-6).any())
    if is_perspective:
        patches: torch.Tensor = warp_perspective(
            input_tensor,
            dst_trans_src,
            out_size,
            mode=mode,
            padding_mode=padding_mode,
            align_corners=align_corners,
        )
    else:
        patches = warp_affine(
            input_tensor,
            dst_trans_src[:, :2, :],
            out_size,
            mode=mode,
            padding_mode=padding_mode,
            align_corners=align_corners,
        )

    return patches


class STNCropClassifier(nn.Module):
    """Localization net predicts a dst<-src pixel affine; the crop is classified."""

    def __init__(self, patch=(32, 32), num_classes=10):
        super().__init__()
        self.patch = patch
        self.loc = nn.Sequential(nn.Conv2d(3, 8, 5, stride=4), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                                 nn.Linear(8, 6))
        self.cls = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                                 nn.Flatten(), nn.Linear(16, num_classes))

    def forward(self, images):
        delta = 0.1 * torch.tanh(self.loc(images)).view(-1, 2, 3)
        base = torch.tensor([[0.5, 0.0, -8.0], [0.0, 0.5, -8.0]], dtype=images.dtype)
        theta = base + delta
        patches = crop_by_transform_mat(images, theta, self.patch, align_corners=False)
        return self.cls(patches), patches


def make_model():
    return STNCropClassifier().eval()


def example_inputs():
    return (torch.rand(2, 3, 96, 96),)


def other_inputs():
    return [(torch.rand(3, 3, 96, 96),), (torch.rand(1, 3, 96, 96),)]


def probe_inputs():
    return other_inputs()
