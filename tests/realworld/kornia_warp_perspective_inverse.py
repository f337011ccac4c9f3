"""A model that warps its feature map with kornia's `warp_perspective` (homography warping, as used for image
registration / alignment): kornia normalizes the 3x3 homography and inverts it with `torch.inverse`
(`_torch_inverse_cast`), so the ONNX export fails with "Exporting the operator 'aten::linalg_inv' to ONNX opset
version 19 is not supported" (the kornia PR fixes a device mismatch but notes the export still fails there).

Source: https://github.com/kornia/kornia/pull/2999
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-3"


# ---- kornia.geometry (conversions.py, transform/imgwarp.py, linalg.py, utils/grid.py), checks dropped ----
def _torch_inverse_cast(input: Tensor) -> Tensor:
    dtype = input.dtype
    if dtype not in (torch.float32, torch.float64):
        dtype = torch.float32
    return torch.inverse(input.to(dtype)).to(input.dtype)


def normal_transform_pixel(height, width, eps=1e-14, device=None, dtype=None):
    tr_mat = torch.tensor([[1.0, 0.0, -1.0], [0.0, 1.0, -1.0], [0.0, 0.0, 1.0]], device=device, dtype=dtype)  # 3x3
    # prevent divide by zero bugs
    width_denom = eps if width == 1 else width - 1.0
    height_denom = eps if height == 1 else height - 1.0
    tr_mat[0, 0] = tr_mat[0, 0] * 2.0 / width_denom
    tr_mat[1, 1] = tr_mat[1, 1] * 2.0 / height_denom
    return tr_mat.unsqueeze(0)  # 1x3x3


def normalize_homography(dst_pix_trans_src_pix, dsize_src, dsize_dst):
    src_h, src_w = dsize_src
    dst_h, dst_w = dsize_dst
    src_norm_trans_src_pix = normal_transform_pixel(src_h, src_w).to(dst_pix_trans_src_pix)
    src_pix_trans_src_norm = _torch_inverse_cast(src_norm_trans_src_pix)
    dst_norm_trans_dst_pix = normal_transform_pixel(dst_h, dst_w).to(dst_pix_trans_src_pix)
    dst_norm_trans_src_norm = dst_norm_trans_dst_pix @ (dst_pix_trans_src_pix @ src_pix_trans_src_norm)
    return dst_norm_trans_src_norm


def create_meshgrid(height, width, normalized_coordinates=True, device=None, dtype=None):
    xs = torch.linspace(0, width - 1, width, device=device, dtype=dtype)
    ys = torch.linspace(0, height - 1, height, device=device, dtype=dtype)
    if normalized_coordinates:
        xs = (xs / (width - 1) - 0.5) * 2
        ys = (ys / (height - 1) - 0.5) * 2
    base_grid = torch.stack(torch.meshgrid([xs, ys], indexing="ij"), dim=-1)  # WxHx2
    return base_grid.permute(1, 0, 2).unsqueeze(0)  # 1xHxWx2


def convert_points_to_homogeneous(points):
    return torch.nn.functional.pad(points, [0, 1], "constant", 1.0)


def convert_points_from_homogeneous(points, eps=1e-8):
    z_vec = points[..., -1:]
    mask = torch.abs(z_vec) > eps
    scale = torch.where(mask, 1.0 / (z_vec + eps), torch.ones_like(z_vec))
    return scale * points[..., :-1]


def transform_points(trans_01, points_1):
    shape_inp = list(points_1.shape)
    points_1 = points_1.reshape(-1, points_1.shape[-2], points_1.shape[-1])
    trans_01 = trans_01.reshape(-1, trans_01.shape[-2], trans_01.shape[-1])
    trans_01 = torch.repeat_interleave(trans_01, repeats=points_1.shape[0] // trans_01.shape[0], dim=0)
    points_1_h = convert_points_to_homogeneous(points_1)
    points_0_h = torch.bmm(points_1_h, trans_01.permute(0, 2, 1))
    points_0_h = torch.squeeze(points_0_h, dim=-1)
    points_0 = convert_points_from_homogeneous(points_0_h)
    shape_inp[-2] = points_0.shape[-2]
    shape_inp[-1] = points_0.shape[-1]
    points_0 = points_0.reshape(shape_inp)
    return points_0


def warp_perspective(src, M, dsize, mode="bilinear", padding_mode="zeros", align_corners=True):
    B, _, H, W = src.size()
    h_out, w_out = dsize
    dst_norm_trans_src_norm = normalize_homography(M, (H, W), (h_out, w_out))  # Bx3x3
    src_norm_trans_dst_norm = _torch_inverse_cast(dst_norm_trans_src_norm)  # Bx3x3
    grid = create_meshgrid(h_out, w_out, normalized_coordinates=True, device=src.device).to(src.dtype).repeat(B, 1, 1, 1)
    grid = transform_points(src_norm_trans_dst_norm[:, None, None], grid)
    return F.grid_sample(src, grid, align_corners=align_corners, mode=mode, padding_mode=padding_mode)


# ---- the PR's example model ----
class DummyWarpModel(nn.Module):
    def __init__(self, input_channels: int = 3, output_channels: int = 3, height: int = 64, width: int = 64):
        super(DummyWarpModel, self).__init__()
        self.conv1 = nn.Conv2d(input_channels, 16, kernel_size=3, stride=1, padding=1)
        self.conv2 = nn.Conv2d(16, output_channels, kernel_size=3, stride=1, padding=1)
        self.height = height
        self.width = width

    def forward(self, x: torch.Tensor):
        x = torch.relu(self.conv1(x))
        M = torch.eye(3, device=x.device).unsqueeze(0).repeat(x.size(0), 1, 1)
        x = warp_perspective(x, M, dsize=(self.height, self.width))
        x = self.conv2(x)
        return x


def make_model():
    return DummyWarpModel().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(1, 3, 64, 64),), (torch.randn(4, 3, 64, 64),)]


def probe_inputs():
    return other_inputs()
