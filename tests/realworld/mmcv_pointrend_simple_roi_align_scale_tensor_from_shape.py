"""PointRend (mmcv `SimpleRoIAlign`) before the ONNX-export fix: per image it converts RoI grid points to
image-relative points with `abs_img_point_to_rel_img_point(..., feat.shape[2:])`, which builds
`scale = torch.tensor([w, h], ...)` from the feature-map size, inside `for batch_ind in range(num_imgs)` /
`if inds.any():`. The PR replaces the `torch.tensor` of the shape with `shape_as_tensor(x)[2:]` (and the batch
loop with one batched sample) so the exported mask head follows the feature-map size. (mmdet mask head reduced
to a conv + fc on the RoI features.)

Source: https://github.com/open-mmlab/mmcv/pull/953
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.modules.utils import _pair

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"features": {2: "height", 3: "width"}, "rois": {0: "num_rois"}}
BLIND = "domains-19"


def normalize(grid):
    return (grid + 1.0) / 2.0


def denormalize(grid):
    return grid * 2.0 - 1.0


def generate_grid(num_grid, size, device):
    affine_trans = torch.tensor([[[1., 0., 0.], [0., 1., 0.]]], device=device)
    grid = F.affine_grid(
        affine_trans, torch.Size((1, 1, *size)), align_corners=False)
    grid = normalize(grid)
    return grid.view(1, -1, 2).expand(num_grid, -1, -1)


def rel_roi_point_to_abs_img_point(rois, rel_roi_points):
    with torch.no_grad():
        assert rel_roi_points.size(0) == rois.size(0)
        assert rois.dim() == 2
        assert rel_roi_points.dim() == 3
        assert rel_roi_points.size(2) == 2
        # remove batch idx
        if rois.size(1) == 5:
            rois = rois[:, 1:]
        abs_img_points = rel_roi_points.clone()
        abs_img_points[:, :, 0] = abs_img_points[:, :, 0] * (
            rois[:, None, 2] - rois[:, None, 0])
        abs_img_points[:, :, 1] = abs_img_points[:, :, 1] * (
            rois[:, None, 3] - rois[:, None, 1])
        abs_img_points[:, :, 0] += rois[:, None, 0]
        abs_img_points[:, :, 1] += rois[:, None, 1]
    return abs_img_points


def abs_img_point_to_rel_img_point(abs_img_points,
                                   img_shape,
                                   spatial_scale=1.):
    assert isinstance(img_shape, tuple) and len(img_shape) == 2
    h, w = img_shape
    scale = torch.tensor([w, h],
                         dtype=torch.float,
                         device=abs_img_points.device)
    scale = scale.view(1, 1, 2)
    rel_img_points = abs_img_points / scale * spatial_scale

    return rel_img_points


def rel_roi_point_to_rel_img_point(rois,
                                   rel_roi_points,
                                   img_shape,
                                   spatial_scale=1.):
    abs_img_point = rel_roi_point_to_abs_img_point(rois, rel_roi_points)
    rel_img_point = abs_img_point_to_rel_img_point(abs_img_point, img_shape,
                                                   spatial_scale)

    return rel_img_point


def point_sample(input, points, align_corners=False, **kwargs):
    add_dim = False
    if points.dim() == 3:
        add_dim = True
        points = points.unsqueeze(2)
    output = F.grid_sample(
        input, denormalize(points), align_corners=align_corners, **kwargs)
    if add_dim:
        output = output.squeeze(3)
    return output


class SimpleRoIAlign(nn.Module):

    def __init__(self, output_size, spatial_scale, aligned=True):
        super(SimpleRoIAlign, self).__init__()
        self.output_size = _pair(output_size)
        self.spatial_scale = float(spatial_scale)
        # to be consistent with other RoI ops
        self.use_torchvision = False
        self.aligned = aligned

    def forward(self, features, rois):

        num_imgs = features.size(0)
        num_rois = rois.size(0)
        rel_roi_points = generate_grid(
            num_rois, self.output_size, device=rois.device)

        point_feats = []
        for batch_ind in range(num_imgs):
            # unravel batch dim
            feat = features[batch_ind].unsqueeze(0)
            inds = (rois[:, 0].long() == batch_ind)
            if inds.any():
                rel_img_points = rel_roi_point_to_rel_img_point(
                    rois[inds], rel_roi_points[inds], feat.shape[2:],
                    self.spatial_scale).unsqueeze(0)
                point_feat = point_sample(
                    feat, rel_img_points, align_corners=not self.aligned)
                point_feat = point_feat.squeeze(0).transpose(0, 1)
                point_feats.append(point_feat)

        channels = features.size(1)
        roi_feats = torch.cat(point_feats, dim=0)
        roi_feats = roi_feats.reshape(num_rois, channels, *self.output_size)

        return roi_feats


class PointRendCoarseMaskHead(nn.Module):
    def __init__(self, in_channels=8, roi_size=7, num_classes=3):
        super().__init__()
        self.roi_extractor = SimpleRoIAlign(output_size=roi_size, spatial_scale=1.0 / 4)
        self.conv = nn.Conv2d(in_channels, in_channels, 2, stride=2)
        self.fc = nn.Linear(in_channels * 16, num_classes * 7 * 7)
        self.num_classes = num_classes

    def forward(self, features, rois):
        roi_feats = self.roi_extractor(features, rois)
        x = F.relu(self.conv(F.pad(roi_feats, (0, 1, 0, 1))))
        mask_pred = self.fc(x.flatten(1))
        return mask_pred.view(-1, self.num_classes, 7, 7)


def make_model():
    return PointRendCoarseMaskHead().eval()


def _rois(n, img_h, img_w):
    x1 = torch.rand(n) * img_w * 0.5
    y1 = torch.rand(n) * img_h * 0.5
    x2 = x1 + torch.rand(n) * img_w * 0.5 + 4
    y2 = y1 + torch.rand(n) * img_h * 0.5 + 4
    return torch.stack([torch.zeros(n), x1, y1, x2, y2], 1)


def example_inputs():
    return (torch.randn(1, 8, 16, 24), _rois(5, 64, 96))


def other_inputs():
    return [(torch.randn(1, 8, 30, 20), _rois(7, 120, 80)),
            (torch.randn(1, 8, 12, 40), _rois(3, 48, 160))]


def probe_inputs():
    return other_inputs()
