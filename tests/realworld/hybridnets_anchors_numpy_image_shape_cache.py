"""HybridNets (multi-task driving perception: traffic-object detection + drivable-area/lane segmentation)
returns its anchor boxes from `Anchors.forward`, which builds them with NumPy (np.arange/np.meshgrid/np.vstack)
from `image.shape[2:]` and caches them per device/shape; exporting HybridNetsBackbone with dynamic
batch/height/width gives an ONNX model whose anchors output ("output3") is a fixed-size constant, so the
dynamic outputs fail for other image sizes.

Source: https://github.com/pytorch/pytorch/issues/83687
"""
import itertools

import numpy as np
import torch
from torch import nn

CLASS = "numpy-from-shape"
FAMILY = "numpy_interop"
DYNAMIC = {"inputs": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-14"


class Anchors(nn.Module):
    """utils/utils.py"""

    def __init__(self, anchor_scale=4., pyramid_levels=None, **kwargs):
        super().__init__()
        self.anchor_scale = anchor_scale

        if pyramid_levels is None:
            self.pyramid_levels = [3, 4, 5, 6, 7]
        else:
            self.pyramid_levels = pyramid_levels

        self.strides = kwargs.get('strides', [2 ** x for x in self.pyramid_levels])
        self.scales = np.array(kwargs.get('scales', [2 ** 0, 2 ** (1.0 / 3.0), 2 ** (2.0 / 3.0)]))
        self.ratios = kwargs.get('ratios', [(1.0, 1.0), (1.4, 0.7), (0.7, 1.4)])

        self.last_anchors = {}
        self.last_shape = None

    def forward(self, image, dtype=torch.float32):
        image_shape = image.shape[2:]

        if image_shape == self.last_shape and image.device in self.last_anchors:
            return self.last_anchors[image.device]

        if self.last_shape is None or self.last_shape != image_shape:
            self.last_shape = image_shape

        if dtype == torch.float16:
            dtype = np.float16
        else:
            dtype = np.float32

        boxes_all = []
        for stride in self.strides:
            boxes_level = []
            for scale, ratio in itertools.product(self.scales, self.ratios):
                if image_shape[1] % stride != 0:
                    raise ValueError('input size must be divided by the stride.')
                base_anchor_size = self.anchor_scale * stride * scale
                anchor_size_x_2 = base_anchor_size * ratio[0] / 2.0
                anchor_size_y_2 = base_anchor_size * ratio[1] / 2.0

                x = np.arange(stride / 2, image_shape[1], stride)
                y = np.arange(stride / 2, image_shape[0], stride)
                xv, yv = np.meshgrid(x, y)
                xv = xv.reshape(-1)
                yv = yv.reshape(-1)

                # y1,x1,y2,x2
                boxes = np.vstack((yv - anchor_size_y_2, xv - anchor_size_x_2,
                                   yv + anchor_size_y_2, xv + anchor_size_x_2))
                boxes = np.swapaxes(boxes, 0, 1)
                boxes_level.append(np.expand_dims(boxes, axis=1))
            # concat anchors on the same level to the reshape NxAx4
            boxes_level = np.concatenate(boxes_level, axis=1)
            boxes_all.append(boxes_level.reshape([-1, 4]))

        anchor_boxes = np.vstack(boxes_all)

        anchor_boxes = torch.from_numpy(anchor_boxes.astype(dtype)).to(image.device)
        anchor_boxes = anchor_boxes.unsqueeze(0)

        # save it for later use to reduce overhead
        self.last_anchors[image.device] = anchor_boxes
        return anchor_boxes


class HybridNetsBackbone(nn.Module):
    """backbone.py, with the EfficientNet encoder/BiFPN/heads replaced by small convolutions (P3..P7)."""

    def __init__(self, num_classes=2, seg_classes=2, width=16):
        super().__init__()
        self.num_classes = num_classes
        num_anchors = 9
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, 2, 1), nn.ReLU(), nn.Conv2d(width, width, 3, 2, 1), nn.ReLU(),
                                  nn.Conv2d(width, width, 3, 2, 1), nn.ReLU())  # P3, stride 8
        self.downs = nn.ModuleList(nn.Conv2d(width, width, 3, 2, 1) for _ in range(4))  # P4..P7
        self.regressor = nn.Conv2d(width, num_anchors * 4, 3, padding=1)
        self.classifier = nn.Conv2d(width, num_anchors * num_classes, 3, padding=1)
        self.segmentation_head = nn.Sequential(nn.Conv2d(width, seg_classes + 1, 1),
                                               nn.UpsamplingBilinear2d(scale_factor=8))
        self.anchors = Anchors(anchor_scale=1.25, pyramid_levels=(torch.arange(5) + 3).tolist())

    def forward(self, inputs):
        p3 = self.stem(inputs)
        features = [p3]
        for down in self.downs:
            features.append(down(features[-1]))

        segmentation = self.segmentation_head(p3)

        regression, classification = [], []
        for feat in features:
            r = self.regressor(feat).permute(0, 2, 3, 1)
            regression.append(r.contiguous().view(r.shape[0], -1, 4))
            c = self.classifier(feat).permute(0, 2, 3, 1)
            classification.append(c.contiguous().view(c.shape[0], -1, self.num_classes).sigmoid())
        regression = torch.cat(regression, dim=1)
        classification = torch.cat(classification, dim=1)
        anchors = self.anchors(inputs, inputs.dtype)

        return regression, classification, anchors, segmentation


def make_model():
    return HybridNetsBackbone().eval()


def example_inputs():
    return (torch.randn(2, 3, 256, 384),)


def other_inputs():
    return [(torch.randn(3, 3, 384, 640),), (torch.randn(1, 3, 128, 256),)]


def probe_inputs():
    return other_inputs()
