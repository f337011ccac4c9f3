"""TrackTacular's MVDet (multi-view pedestrian detection) projects every camera's feature map onto the
ground plane with kornia's `warp_perspective(feat_cams_, proj_mats, (self.Y, self.X), align_corners=False)`;
kornia inverts the normalized homography with torch.inverse, so torch.onnx.export fails with
"Exporting the operator 'aten::linalg_inv' to ONNX opset version ... is not supported".

Source: https://github.com/kornia/kornia/issues/2995
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"rgb_cams": {0: "batch"}, "proj_mats": {0: "batch"}}
BLIND = "operators-16"


# --- the few kornia.geometry lines warp_perspective needs ---------------------------------------
def _torch_inverse_cast(input):
    dtype = input.dtype
    if dtype not in (torch.float32, torch.float64):
        dtype = torch.float32
    return torch.inverse(input.to(dtype)).to(input.dtype)


def normal_transform_pixel(height, width, eps=1e-14, device=None, dtype=None):
    tr_mat = torch.tensor([[1.0, 0.0, -1.0], [0.0, 1.0, -1.0], [0.0, 0.0, 1.0]], device=device, dtype=dtype)
    width_denom = eps if width == 1 else width - 1.0
    height_denom = eps if height == 1 else height - 1.0
    tr_mat[0, 0] = tr_mat[0, 0] * 2.0 / width_denom
    tr_mat[1, 1] = tr_mat[1, 1] * 2.0 / height_denom
    return tr_mat.unsqueeze(0)


def normalize_homography(dst_pix_trans_src_pix, dsize_src, dsize_dst):
    src_h, src_w = dsize_src
    dst_h, dst_w = dsize_dst
    src_norm_trans_src_pix = normal_transform_pixel(src_h, src_w).to(dst_pix_trans_src_pix)
    src_pix_trans_src_norm = _torch_inverse_cast(src_norm_trans_src_pix)
    dst_norm_trans_dst_pix = normal_transform_pixel(dst_h, dst_w).to(dst_pix_trans_src_pix)
    return dst_norm_trans_dst_pix @ (dst_pix_trans_src_pix @ src_pix_trans_src_norm)


def create_meshgrid(height, width, normalized_coordinates=True, device=None, dtype=None):
    xs = torch.linspace(0, width - 1, width, device=device, dtype=dtype)
    ys = torch.linspace(0, height - 1, height, device=device, dtype=dtype)
    if normalized_coordinates:
        xs = (xs / (width - 1) - 0.5) * 2
        ys = (ys / (height - 1) - 0.5) * 2
    base_grid = torch.stack(torch.meshgrid([xs, ys], indexing="ij"), dim=-1)
    return base_grid.permute(1, 0, 2).unsqueeze(0)


def transform_points(trans_01, points_1):
    shape_inp = list(points_1.shape)
    points_1 = points_1.reshape(-1, points_1.shape[-2], points_1.shape[-1])
    trans_01 = trans_01.reshape(-1, trans_01.shape[-2], trans_01.shape[-1])
    trans_01 = torch.repeat_interleave(trans_01, repeats=points_1.shape[0] // trans_01.shape[0], dim=0)
    points_1_h = F.pad(points_1, [0, 1], "constant", 1.0)
    points_0_h = torch.bmm(points_1_h, trans_01.permute(0, 2, 1))
    z_vec = points_0_h[..., -1:]
    scale = torch.where(torch.abs(z_vec) > 1e-8, 1.0 / z_vec, torch.ones_like(z_vec))
    points_0 = scale * points_0_h[..., :-1]
    shape_inp[-2] = points_0.shape[-2]
    shape_inp[-1] = points_0.shape[-1]
    return points_0.reshape(shape_inp)


def warp_perspective(src, M, dsize, mode="bilinear", padding_mode="zeros", align_corners=True):
    B, _, H, W = src.shape
    h_out, w_out = dsize
    dst_norm_trans_src_norm = normalize_homography(M, (H, W), (h_out, w_out))
    src_norm_trans_dst_norm = _torch_inverse_cast(dst_norm_trans_src_norm)
    grid = create_meshgrid(h_out, w_out, normalized_coordinates=True, device=src.device).to(src.dtype)
    grid = grid.repeat(B, 1, 1, 1)
    grid = transform_points(src_norm_trans_dst_norm[:, None, None], grid)
    return F.grid_sample(src, grid, align_corners=align_corners, mode=mode, padding_mode=padding_mode)


# --- MVDet ----------------------------------------------------------------------------------------
class MVDet(nn.Module):
    def __init__(self, Y=24, Z=4, X=36, num_cameras=4, num_classes=3, feat2d_dim=16):
        super().__init__()
        self.Y, self.Z, self.X = Y, Z, X
        self.num_cameras = num_cameras
        self.encoder = nn.Sequential(nn.Conv2d(3, feat2d_dim, 3, stride=4, padding=1), nn.ReLU())
        self.bev_compressor = nn.Sequential(nn.Conv2d(feat2d_dim * num_cameras, feat2d_dim, 3, padding=1), nn.ReLU())
        self.center_head = nn.Conv2d(feat2d_dim, num_classes, 1)

    def forward(self, rgb_cams, proj_mats):
        B, S, C, H, W = rgb_cams.shape
        __p = lambda x: x.reshape(B * S, *x.shape[2:])
        __u = lambda x: x.reshape(B, S, *x.shape[1:])
        feat_cams_ = self.encoder(__p(rgb_cams))      # B*S, c, h, w
        proj_mats = __p(proj_mats)                     # B*S, 3, 3
        feat_mems_ = warp_perspective(feat_cams_, proj_mats, (self.Y, self.X), align_corners=False)
        feat_mems = __u(feat_mems_)                    # B, S, c, Y, X
        bev = self.bev_compressor(feat_mems.flatten(1, 2))
        return self.center_head(bev)


def make_model():
    return MVDet().eval()


def _proj(b, s=4):
    # image-feature -> ground-plane homographies (a mild random perspective around a scaling)
    base = torch.tensor([[0.3, 0.0, 1.0], [0.0, 0.4, 2.0], [0.0, 0.0, 1.0]])
    return base + 0.01 * torch.randn(b, s, 3, 3)


def example_inputs():
    return (torch.rand(1, 4, 3, 64, 96), _proj(1))


def other_inputs():
    return [(torch.rand(2, 4, 3, 64, 96), _proj(2)), (torch.rand(3, 4, 3, 64, 96), _proj(3))]


def probe_inputs():
    return other_inputs()
