"""detectron2 PointRend mask head (before "make pointrend mask head traceable"): the coarse mask branch sizes
its regular point grid with `np.sum(len(x) for x in boxes)`, splits the points per image with
`[len(b) for b in boxes]` and scales them by `torch.tensor([w, h])` built from each feature map's shape; the
commit replaces these with `x.tensor.size(0)` and a stacked shape tensor so the exported head follows the
number of boxes and the image size. (The original `np.sum(<generator>)` is written with a list here because
NumPy 2 rejects a generator.)

Source: https://github.com/facebookresearch/detectron2/commit/b5d90dd2f30aaf4ae567ff3bbcecb1a1ff6e052f
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

CLASS = "numpy-from-shape"
FAMILY = "numpy_interop"
DYNAMIC = {"p2": {2: "height", 3: "width"}, "p3": {2: "height3", 3: "width3"}, "boxes": {0: "num_boxes"}}
BLIND = "domains-53"


def cat(tensors, dim=0):
    if len(tensors) == 1:
        return tensors[0]
    return torch.cat(tensors, dim)


class Boxes:
    def __init__(self, tensor):
        self.tensor = tensor

    def __len__(self):
        return self.tensor.shape[0]

    @property
    def device(self):
        return self.tensor.device

    @classmethod
    def cat(cls, boxes_list):
        return cls(torch.cat([b.tensor for b in boxes_list], dim=0))


def point_sample(input, point_coords, **kwargs):
    add_dim = False
    if point_coords.dim() == 3:
        add_dim = True
        point_coords = point_coords.unsqueeze(2)
    output = F.grid_sample(input, 2.0 * point_coords - 1.0, **kwargs)
    if add_dim:
        output = output.squeeze(3)
    return output


def generate_regular_grid_point_coords(R, side_size, device):
    aff = torch.tensor([[[0.5, 0, 0.5], [0, 0.5, 0.5]]], device=device)
    r = F.affine_grid(aff, torch.Size((1, 1, side_size, side_size)), align_corners=False)
    return r.view(1, -1, 2).expand(R, -1, -1)


def get_point_coords_wrt_image(boxes_coords, point_coords):
    with torch.no_grad():
        point_coords_wrt_image = point_coords.clone()
        point_coords_wrt_image[:, :, 0] = point_coords_wrt_image[:, :, 0] * (
            boxes_coords[:, None, 2] - boxes_coords[:, None, 0]
        )
        point_coords_wrt_image[:, :, 1] = point_coords_wrt_image[:, :, 1] * (
            boxes_coords[:, None, 3] - boxes_coords[:, None, 1]
        )
        point_coords_wrt_image[:, :, 0] += boxes_coords[:, None, 0]
        point_coords_wrt_image[:, :, 1] += boxes_coords[:, None, 1]
    return point_coords_wrt_image


def point_sample_fine_grained_features(features_list, feature_scales, boxes, point_coords):
    cat_boxes = Boxes.cat(boxes)
    num_boxes = [len(b) for b in boxes]

    point_coords_wrt_image = get_point_coords_wrt_image(cat_boxes.tensor, point_coords)
    split_point_coords_wrt_image = torch.split(point_coords_wrt_image, num_boxes)

    point_features = []
    for idx_img, point_coords_wrt_image_per_image in enumerate(split_point_coords_wrt_image):
        point_features_per_image = []
        for idx_feature, feature_map in enumerate(features_list):
            h, w = feature_map.shape[-2:]
            scale = torch.tensor([w, h], device=feature_map.device) / feature_scales[idx_feature]
            point_coords_scaled = point_coords_wrt_image_per_image / scale
            point_features_per_image.append(
                point_sample(
                    feature_map[idx_img].unsqueeze(0),
                    point_coords_scaled.unsqueeze(0),
                    align_corners=False,
                )
                .squeeze(0)
                .transpose(1, 0)
            )
        point_features.append(cat(point_features_per_image, dim=1))

    return cat(point_features, dim=0), point_coords_wrt_image


class CoarseMaskHead(nn.Module):
    def __init__(self, input_channels=32, side=7, conv_dim=16, fc_dim=64, num_classes=3, out_side=7):
        super().__init__()
        self.input_channels, self.input_h, self.input_w = input_channels, side, side
        self.num_classes, self.output_side_resolution = num_classes, out_side
        self.reduce_spatial_dim_conv = nn.Conv2d(input_channels, conv_dim, 2, stride=2, padding=0)
        self.fc1 = nn.Linear(conv_dim * ((side - 2) // 2 + 1) ** 2, fc_dim)
        self.prediction = nn.Linear(fc_dim, num_classes * out_side * out_side)

    def layers(self, x):
        N = x.shape[0]
        x = x.view(N, self.input_channels, self.input_h, self.input_w)
        x = F.relu(self.reduce_spatial_dim_conv(x))
        x = torch.flatten(x, start_dim=1)
        x = F.relu(self.fc1(x))
        return self.prediction(x).view(
            N, self.num_classes, self.output_side_resolution, self.output_side_resolution
        )


class PointRendMaskHead(nn.Module):
    """projects/PointRend/point_rend/mask_head.py, coarse branch at inference (point head off)."""

    def __init__(self):
        super().__init__()
        self.mask_coarse_in_features = ["p2", "p3"]
        self.mask_coarse_side_size = 7
        self._feature_scales = {"p2": 1.0 / 4, "p3": 1.0 / 8}
        self.coarse_head = CoarseMaskHead(input_channels=32, side=7)

    def _forward_mask_coarse(self, features, boxes):
        point_coords = generate_regular_grid_point_coords(
            np.sum([len(x) for x in boxes]), self.mask_coarse_side_size, boxes[0].device
        )
        mask_coarse_features_list = [features[k] for k in self.mask_coarse_in_features]
        features_scales = [self._feature_scales[k] for k in self.mask_coarse_in_features]
        mask_features, _ = point_sample_fine_grained_features(
            mask_coarse_features_list, features_scales, boxes, point_coords
        )
        return self.coarse_head.layers(mask_features)

    def forward(self, p2, p3, boxes):
        features = {"p2": p2, "p3": p3}
        pred_boxes = [Boxes(boxes)]
        return self._forward_mask_coarse(features, pred_boxes)


def make_model():
    return PointRendMaskHead().eval()


def _inputs(h, w, n):
    xy = torch.rand(n, 2) * torch.tensor([w * 0.5, h * 0.5])
    wh = torch.rand(n, 2) * torch.tensor([w * 0.4, h * 0.4]) + 4
    boxes = torch.cat([xy, xy + wh], dim=1)
    return (torch.randn(1, 16, h // 4, w // 4), torch.randn(1, 16, h // 8, w // 8), boxes)


def example_inputs():
    return _inputs(256, 320, 5)


def other_inputs():
    return [_inputs(320, 224, 8), _inputs(192, 256, 3)]


def probe_inputs():
    return other_inputs()
