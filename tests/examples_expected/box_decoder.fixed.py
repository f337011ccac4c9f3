"""An anchor-free box decoder (FCOS/YOLOX style) over one feature-pyramid level.

Each feature-map cell predicts distances to the four box sides; the decoder turns them into
normalized (x1, y1, x2, y2) boxes. The stride of the level and the normalization are computed
from the image and feature sizes with Python numbers, the way detection heads are often
written, in the head, a helper and a method. The legacy exporter records those numbers as
constants; the dynamo exporter exports `int(image_width / feature_width)` as the export-time
stride and `int(h * w)` as the export-time cell count. Both exported models then fail in
onnxruntime on a feature map of another size.
"""

import torch
from torch import nn


def cell_centers(height, width, stride, like: torch.Tensor) -> torch.Tensor:
    """(height * width, 2) centers of the cells of a stride-`stride` grid, in pixels."""
    ys = (torch.arange(height, dtype=like.dtype) + 0.5) * stride
    xs = (torch.arange(width, dtype=like.dtype) + 0.5) * stride
    grid_y, grid_x = torch.meshgrid(ys, xs, indexing="ij")
    return torch.stack([grid_x, grid_y], dim=-1).reshape(-1, 2)


def distances_to_boxes(centers: torch.Tensor, distances: torch.Tensor) -> torch.Tensor:
    centers = centers.expand(distances.shape[0], -1, -1)  # one copy of the grid per image
    left_top = centers - distances[..., :2]
    right_bottom = centers + distances[..., 2:]
    return torch.cat([left_top, right_bottom], dim=-1)


class LevelHead(nn.Module):
    def __init__(self, channels: int = 8, classes: int = 3):
        super().__init__()
        self.regress = nn.Conv2d(channels, 4, kernel_size=1)
        self.classify = nn.Conv2d(channels, classes, kernel_size=1)

    def forward(self, features: torch.Tensor):
        batch = features.shape[0]
        cells = features.shape[2] * features.shape[3]
        distances = self.regress(features).reshape(batch, 4, cells).transpose(1, 2).exp()
        scores = self.classify(features).reshape(batch, -1, cells).transpose(1, 2).sigmoid()
        return distances, scores


class BoxDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = LevelHead()

    def normalize(self, boxes: torch.Tensor, images: torch.Tensor) -> torch.Tensor:
        height, width = images.shape[-2:]
        extent = torch.stack([
            torch.tensor(width, dtype=boxes.dtype),
            torch.tensor(height, dtype=boxes.dtype),
            torch.tensor(width, dtype=boxes.dtype),
            torch.tensor(height, dtype=boxes.dtype),
        ])
        return (boxes / extent).clamp(0.0, 1.0)

    def forward(self, features: torch.Tensor, images: torch.Tensor):
        _, _, height, width = features.shape
        stride = images.shape[-1] // width
        distances, scores = self.head(features)
        centers = cell_centers(height, width, stride, features)
        boxes = distances_to_boxes(centers, distances * stride)
        return self.normalize(boxes, images), scores


def make_model() -> nn.Module:
    torch.manual_seed(0)
    return BoxDecoder().eval()


def _inputs(seed: int, feature_size: int, image_size: int):
    generator = torch.Generator().manual_seed(seed)
    features = torch.randn(2, 8, feature_size, feature_size, generator=generator)
    images = torch.rand(2, 3, image_size, image_size, generator=generator)
    return features, images


def example_inputs():
    return _inputs(0, 8, 64)  # stride 8


def probe_inputs():
    return [
        _inputs(1, 8, 64),  # other values
        _inputs(2, 16, 64),  # a finer level: stride 4
        _inputs(3, 10, 160),  # another image size: stride 16
    ]


DYNAMIC = {0: {2: "feature_h", 3: "feature_w"}, 1: {2: "image_h", 3: "image_w"}}
