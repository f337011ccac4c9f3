"""OccDepth (stereo/depth-aware semantic occupancy, NYU): `FlospDepth.forward` reads the voxel origin tensor into
Python lists (`x_bound = [vox_origin[0][0], ...]`), re-registers the `voxel_size`/`voxel_coord` buffers with
`torch.Tensor([...])`, builds `pc_range` from those lists and builds a new `FrustumGridGenerator` in forward (its voxel meshgrid is sized by
`self.grid_size.int()`); exporting needs the repo's `infer_mode`, where the frustum grids are precomputed and fed in.
(The forward's `voxel_num` re-registration is left to `__init__`: `torch.LongTensor` of 0-d tensors no longer runs.)

Source: https://github.com/megvii-research/OccDepth/issues/7
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"img_feat": {0: "batch"}, "cam_k": {0: "batch"}, "T_velo_2_cam": {0: "batch"}, "vox_origin": {0: "batch"}}
BLIND = "domains-53"


def create_meshgrid3d(depth, height, width):  # kornia.utils.create_meshgrid3d(normalized_coordinates=False)
    xs = torch.linspace(0, width - 1, width)
    ys = torch.linspace(0, height - 1, height)
    zs = torch.linspace(0, depth - 1, depth)
    base_grid = torch.stack(torch.meshgrid([zs, xs, ys], indexing="ij"), dim=-1)
    return base_grid.permute(0, 2, 1, 3).unsqueeze(0)


class FrustumGridGenerator(nn.Module):
    def __init__(self, grid_size, pc_range, disc_cfg):
        super().__init__()
        self.grid_size = torch.as_tensor(grid_size)
        self.disc_cfg = disc_cfg
        pc_range = torch.as_tensor(pc_range).reshape(2, 3)
        self.pc_min = pc_range[0]
        self.voxel_size = (pc_range[1] - self.pc_min) / self.grid_size
        self.depth, self.width, self.height = self.grid_size.int()
        self.voxel_grid = create_meshgrid3d(depth=self.depth, height=self.height, width=self.width)
        self.voxel_grid = self.voxel_grid.permute(0, 1, 3, 2, 4) + 0.5  # XZY-> XYZ, voxel centers
        x_size, y_size, z_size = self.voxel_size
        x_min, y_min, z_min = self.pc_min
        self.grid_to_lidar = torch.tensor([[x_size, 0, 0, x_min], [0, y_size, 0, y_min], [0, 0, z_size, z_min],
                                           [0, 0, 0, 1]], dtype=torch.float32)

    def forward(self, lidar_to_cam, cam_to_img, image_shape):
        B = lidar_to_cam.shape[0]
        trans = (lidar_to_cam @ self.grid_to_lidar).reshape(B, 1, 1, 1, 4, 4)
        voxel_grid = self.voxel_grid.repeat_interleave(repeats=B, dim=0)
        points = torch.cat([voxel_grid, torch.ones_like(voxel_grid[..., :1])], -1).unsqueeze(-1)
        camera_grid = (trans @ points)  # kornia.transform_points
        project = cam_to_img.reshape(B, 1, 1, 1, 3, 4)
        points_t = (project @ camera_grid).squeeze(-1)
        image_grid = points_t[..., 0:2] / points_t[..., 2:3]
        d = self.disc_cfg
        bin_size = 2 * (d["depth_max"] - d["depth_min"]) / (d["num_bins"] * (1 + d["num_bins"]))
        image_depths = -0.5 + 0.5 * torch.sqrt(1 + 8 * (points_t[..., 2] - d["depth_min"]) / bin_size)
        frustum_grid = torch.cat((image_grid, image_depths.unsqueeze(-1)), dim=-1)
        image_shape, _ = torch.max(image_shape, dim=0)
        image_depth = torch.tensor([d["num_bins"]], device=image_shape.device, dtype=image_shape.dtype)
        shape = torch.flip(torch.cat((image_depth, image_shape)), dims=[0])
        frustum_grid = frustum_grid / (shape - 1) * 2 - 1
        frustum_grid[~torch.isfinite(frustum_grid)] = -2
        return frustum_grid


class FlospDepth(nn.Module):
    def __init__(self, x_bound=(0.0, 4.8, 0.08), y_bound=(0.0, 4.8, 0.08), z_bound=(0.0, 2.88, 0.08),
                 in_channels=16, depth_channels=12, final_dim=(48, 64), project_scale=4):
        super().__init__()
        self.final_dim = final_dim
        self.project_scale = project_scale
        self.register_buffer("voxel_num", torch.LongTensor(
            [(row[1] - row[0]) / row[2] / self.project_scale for row in [x_bound, y_bound, z_bound]]))
        self.depth_net = nn.Conv2d(in_channels, depth_channels, 3, padding=1)
        self.disc_cfg = {"mode": "LID", "num_bins": depth_channels, "depth_min": 0.2, "depth_max": 10.0}

    def forward(self, img_feat, cam_k, T_velo_2_cam, vox_origin):
        x_max, y_max, z_max = 4.8, 4.8, 2.88
        x_bound = [vox_origin[0][0], vox_origin[0][0] + x_max, 0.08]
        y_bound = [vox_origin[0][1], vox_origin[0][1] + y_max, 0.08]
        z_bound = [vox_origin[0][2], vox_origin[0][2] + z_max, 0.08]
        self.register_buffer("voxel_size", torch.Tensor(
            [row[2] * self.project_scale for row in [x_bound, y_bound, z_bound]]))
        self.register_buffer("voxel_coord", torch.Tensor(
            [row[0] + row[2] / 2.0 * self.project_scale for row in [x_bound, y_bound, z_bound]]))
        pc_range = [x_bound[0], y_bound[0], z_bound[0], x_bound[1], y_bound[1], z_bound[1]]
        grid_size = self.voxel_num
        self.grid_generator = FrustumGridGenerator(grid_size=grid_size, pc_range=pc_range, disc_cfg=self.disc_cfg)

        bs, n_cams, c, h, w = img_feat.shape
        img_feat = img_feat.reshape(bs * n_cams, c, h, w)
        intrins_mat = cam_k.new_zeros(bs, 4, 4)
        intrins_mat[:, :3, :3] = cam_k
        intrins_mat[:, 3, 3] = 1
        image_shape = cam_k.new_zeros(bs, 2)
        image_shape[:, 0:2] = torch.as_tensor(self.final_dim)
        depth = self.depth_net(img_feat).softmax(1).unsqueeze(1)  # (B, 1, D, h, w)
        grid = self.grid_generator(lidar_to_cam=T_velo_2_cam, cam_to_img=intrins_mat[:, :3, :], image_shape=image_shape)
        return F.grid_sample(input=depth, grid=grid, mode="bilinear", padding_mode="zeros")


def make_model():
    return FlospDepth().eval()


def _inputs(bs, origin):
    cam_k = torch.tensor([[40.0, 0.0, 32.0], [0.0, 40.0, 24.0], [0.0, 0.0, 1.0]]).repeat(bs, 1, 1)
    T = torch.eye(4).repeat(bs, 1, 1)
    T[:, :3, 3] = torch.tensor([-2.4, -2.4, 1.0]) + 0.1 * torch.randn(bs, 3)
    return (torch.randn(bs, 1, 16, 12, 16), cam_k, T, torch.tensor([origin] * bs, dtype=torch.float64))


def example_inputs():
    return _inputs(1, [-0.5, 0.25, -0.5])


def other_inputs():
    return [_inputs(2, [1.0, -1.5, 0.5]), _inputs(3, [-2.0, 0.75, -1.0])]


def probe_inputs():
    return other_inputs()
