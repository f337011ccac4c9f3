"""BEVFusion (LiDAR-camera 3D detection, mmdet3d project): `BaseDepthTransform.forward` projects the LiDAR points into
every camera to build a sparse depth image, looping `for b in range(batch_size)` and then `for c in
range(on_img.shape[0])` over the cameras, writing `depth[b, c, 0, masked_coords[:, 0], masked_coords[:, 1]] =
masked_dist` with boolean-masked points. The commit that enabled ONNX/TensorRT export replaced the camera loop with
nonzero + scatter, noting "a per-image loop ... fixes the number of images, which is not desired for deployment
(the number of images may change due to frame drops)".

Source: https://github.com/tier4/AWML/commit/3a84cb61d023cff12cc1691bde794f7dc3e3040d
"""
import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {
    "img": {0: "num_imgs"},
    "points": {0: "num_points"},
    "lidar2image": {0: "num_imgs"},
    "img_aug_matrix": {0: "num_imgs"},
}
BLIND = "domains-46"


class DepthLSSTransform(nn.Module):
    # trimmed: BaseDepthTransform.forward's depth rendering + DepthLSSTransform.get_cam_feats (bev_pool left out)
    def __init__(self, in_channels=16, out_channels=8, image_size=(32, 48), feature_size=(4, 6), D=6):
        super().__init__()
        self.image_size = image_size
        self.feature_size = feature_size
        self.C = out_channels
        self.D = D
        self.dtransform = nn.Sequential(
            nn.Conv2d(1, 8, 1), nn.BatchNorm2d(8), nn.ReLU(True),
            nn.Conv2d(8, 32, 5, stride=4, padding=2), nn.BatchNorm2d(32), nn.ReLU(True),
            nn.Conv2d(32, 64, 5, stride=2, padding=2), nn.BatchNorm2d(64), nn.ReLU(True),
        )
        self.depthnet = nn.Sequential(
            nn.Conv2d(in_channels + 64, in_channels, 3, padding=1), nn.BatchNorm2d(in_channels), nn.ReLU(True),
            nn.Conv2d(in_channels, self.D + self.C, 1),
        )

    def get_cam_feats(self, x, d):
        B, N, C, fH, fW = x.shape
        d = d.view(B * N, *d.shape[2:])
        x = x.view(B * N, C, fH, fW)
        d = self.dtransform(d)
        x = torch.cat([d, x], dim=1)
        x = self.depthnet(x)
        depth = x[:, : self.D].softmax(dim=1)
        x = depth.unsqueeze(1) * x[:, self.D: (self.D + self.C)].unsqueeze(2)
        x = x.view(B, N, self.C, self.D, fH, fW)
        x = x.permute(0, 1, 3, 4, 5, 2)
        return x

    def forward(self, img, points, lidar2image, img_aug_matrix):
        batch_size = len(points)
        depth = torch.zeros(batch_size, img.shape[1], 1,
                            *self.image_size).to(points[0].device)

        for b in range(batch_size):
            cur_coords = points[b][:, :3].transpose(1, 0)   # inverse lidar aug trimmed (identity at inference)
            cur_img_aug_matrix = img_aug_matrix[b]
            cur_lidar2image = lidar2image[b]

            # lidar2image
            cur_coords = cur_lidar2image[:, :3, :3].matmul(cur_coords)
            cur_coords += cur_lidar2image[:, :3, 3].reshape(-1, 3, 1)
            # get 2d coords
            dist = cur_coords[:, 2, :]
            cur_coords[:, 2, :] = torch.clamp(cur_coords[:, 2, :], 1e-5, 1e5)
            cur_coords[:, :2, :] /= cur_coords[:, 2:3, :]

            # imgaug
            cur_coords = cur_img_aug_matrix[:, :3, :3].matmul(cur_coords)
            cur_coords += cur_img_aug_matrix[:, :3, 3].reshape(-1, 3, 1)
            cur_coords = cur_coords[:, :2, :].transpose(1, 2)

            # normalize coords for grid sample
            cur_coords = cur_coords[..., [1, 0]]

            on_img = ((cur_coords[..., 0] < self.image_size[0])
                      & (cur_coords[..., 0] >= 0)
                      & (cur_coords[..., 1] < self.image_size[1])
                      & (cur_coords[..., 1] >= 0))
            for c in range(on_img.shape[0]):
                masked_coords = cur_coords[c, on_img[c]].long()
                masked_dist = dist[c, on_img[c]]
                depth = depth.to(masked_dist.dtype)
                depth[b, c, 0, masked_coords[:, 0],
                      masked_coords[:, 1]] = masked_dist

        x = self.get_cam_feats(img, depth)
        return x


class CameraBranch(nn.Module):
    # like the deployment container: one sample, camera features + raw points + per-camera matrices
    def __init__(self):
        super().__init__()
        self.vtransform = DepthLSSTransform()

    def forward(self, img, points, lidar2image, img_aug_matrix):
        return self.vtransform(img.unsqueeze(0), [points], lidar2image.unsqueeze(0), img_aug_matrix.unsqueeze(0))


def make_model():
    return CameraBranch().eval()


def _inputs(num_imgs, num_points):
    # points already in a camera-like frame (z forward); each camera has its own principal point
    pts = torch.cat([torch.rand(num_points, 2) * 8 - 4, torch.rand(num_points, 1) * 4 + 2,
                     torch.rand(num_points, 1)], dim=1)
    mats = []
    for c in range(num_imgs):
        k = torch.eye(4)
        k[0, 0], k[1, 1] = 8.0, 8.0
        k[0, 2], k[1, 2] = 24.0 + 3 * c, 16.0 - 2 * c
        mats.append(k)
    lidar2image = torch.stack(mats)
    img_aug_matrix = torch.eye(4).repeat(num_imgs, 1, 1)
    return (torch.randn(num_imgs, 16, 4, 6), pts, lidar2image, img_aug_matrix)


def example_inputs():
    return _inputs(6, 300)


def other_inputs():
    return [_inputs(5, 240), _inputs(3, 410)]


def probe_inputs():
    return other_inputs()
