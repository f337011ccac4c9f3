"""ternaus/retinaface: the predictor builds the anchors with `priorbox(..., image_size=...)` (Python
`ceil(image_size / step)` and `itertools.product(range(f[0]), range(f[1]))` loops, then
`torch.Tensor(anchors)`) and the scales with `torch.from_numpy(np.tile(transformed_size, 5))` from the
image size; the ONNX converter PR moves both to `__init__` at one fixed `max_size` and pads every image
to it, because an exported graph cannot follow anchors built in Python from the input size.

Source: https://github.com/ternaus/retinaface/pull/33
"""
from itertools import product
from math import ceil
from typing import List, Tuple

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

CLASS = "numpy-from-shape"
FAMILY = "numpy_interop"
DYNAMIC = {"x": {2: "height", 3: "width"}}
BLIND = "domains-41"


def priorbox(min_sizes: List[List[int]], steps: List[int], clip: bool, image_size: Tuple[int, int]) -> torch.Tensor:
    feature_maps = [[ceil(image_size[0] / step), ceil(image_size[1] / step)] for step in steps]

    anchors: List[float] = []
    for k, f in enumerate(feature_maps):
        t_min_sizes = min_sizes[k]
        for i, j in product(range(f[0]), range(f[1])):
            for min_size in t_min_sizes:
                s_kx = min_size / image_size[1]
                s_ky = min_size / image_size[0]
                dense_cx = [x * steps[k] / image_size[1] for x in [j + 0.5]]
                dense_cy = [y * steps[k] / image_size[0] for y in [i + 0.5]]
                for cy, cx in product(dense_cy, dense_cx):
                    anchors += [cx, cy, s_kx, s_ky]

    # back to torch land
    output = torch.Tensor(anchors).view(-1, 4)
    if clip:
        output.clamp_(max=1, min=0)
    return output


def decode(loc, priors, variances):
    boxes = torch.cat(
        (
            priors[:, :2] + loc[:, :2] * variances[0] * priors[:, 2:],
            priors[:, 2:] * torch.exp(loc[:, 2:] * variances[1]),
        ),
        1,
    )
    boxes[:, :2] -= boxes[:, 2:] / 2
    boxes[:, 2:] += boxes[:, :2]
    return boxes


def decode_landm(pre, priors, variances):
    return torch.cat(
        (
            priors[:, :2] + pre[:, :2] * variances[0] * priors[:, 2:],
            priors[:, :2] + pre[:, 2:4] * variances[0] * priors[:, 2:],
            priors[:, :2] + pre[:, 4:6] * variances[0] * priors[:, 2:],
            priors[:, :2] + pre[:, 6:8] * variances[0] * priors[:, 2:],
            priors[:, :2] + pre[:, 8:10] * variances[0] * priors[:, 2:],
        ),
        dim=1,
    )


class Head(nn.Module):
    def __init__(self, in_channels, num_anchors, k):
        super().__init__()
        self.k = k
        self.conv1x1 = nn.Conv2d(in_channels, num_anchors * k, kernel_size=1)

    def forward(self, x):
        out = self.conv1x1(x)
        out = out.permute(0, 2, 3, 1).contiguous()
        return out.view(out.shape[0], -1, self.k)


class RetinaFace(nn.Module):
    """Stand-in for the ResNet50 + FPN + SSH network: three levels at strides 8, 16, 32."""

    def __init__(self, ch=16):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, ch, 3, 2, 1), nn.ReLU(), nn.Conv2d(ch, ch, 3, 2, 1), nn.ReLU(), nn.Conv2d(ch, ch, 3, 2, 1)
        )
        self.down1 = nn.Conv2d(ch, ch, 3, 2, 1)
        self.down2 = nn.Conv2d(ch, ch, 3, 2, 1)
        self.bbox = nn.ModuleList([Head(ch, 2, 4) for _ in range(3)])
        self.cls = nn.ModuleList([Head(ch, 2, 2) for _ in range(3)])
        self.ldm = nn.ModuleList([Head(ch, 2, 10) for _ in range(3)])

    def forward(self, x):
        f1 = self.stem(x)
        f2 = self.down1(f1)
        f3 = self.down2(f2)
        feats = [f1, f2, f3]
        loc = torch.cat([self.bbox[i](f) for i, f in enumerate(feats)], dim=1)
        conf = torch.cat([self.cls[i](f) for i, f in enumerate(feats)], dim=1)
        land = torch.cat([self.ldm[i](f) for i, f in enumerate(feats)], dim=1)
        return loc, conf, land


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = RetinaFace()
        self.variance = [0.1, 0.2]

    def forward(self, x: torch.Tensor):
        transformed_height, transformed_width = x.shape[2:]
        transformed_size = (transformed_width, transformed_height)

        scale_landmarks = torch.from_numpy(np.tile(transformed_size, 5))
        scale_bboxes = torch.from_numpy(np.tile(transformed_size, 2))

        prior_box = priorbox(
            min_sizes=[[16, 32], [64, 128], [256, 512]],
            steps=[8, 16, 32],
            clip=False,
            image_size=x.shape[2:],
        )

        loc, conf, land = self.model(x)

        conf = F.softmax(conf, dim=-1)

        boxes = decode(loc.data[0], prior_box, self.variance)

        boxes *= scale_bboxes
        scores = conf[0][:, 1]

        landmarks = decode_landm(land.data[0], prior_box, self.variance)
        landmarks *= scale_landmarks
        return boxes, scores, landmarks


def make_model():
    return M().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 96),)


def other_inputs():
    return [(torch.randn(1, 3, 96, 64),), (torch.randn(1, 3, 80, 120),)]


def probe_inputs():
    return other_inputs()
