"""Yet-Another-EfficientDet (ONNX/TVM conversion fork): the `Anchors` module builds the anchor boxes in forward
with NumPy from `image.shape[2:]` (np.arange / np.meshgrid per stride, then torch.from_numpy) and caches them by
`last_shape`; the anchors output of the exported ONNX model has a different number of boxes from the PyTorch
model's ((1, 191997, 4) vs torch.Size([1, 196416, 4])) once the image size differs from the export size.

Source: https://github.com/murdockhou/Yet-Another-EfficientDet-Pytorch-Convert-ONNX-TVM/issues/8
"""
import itertools

import numpy as np
import torch
from torch import nn

CLASS = "numpy-from-shape"
FAMILY = "numpy_interop"
DYNAMIC = {"inputs": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-11"


class Anchors(nn.Module):
    """
    adapted and modified from https://github.com/google/automl/blob/master/efficientdet/anchors.py by Zylo117
    """

    def __init__(self, anchor_scale=4., pyramid_levels=None, **kwargs):
        super().__init__()
        self.anchor_scale = anchor_scale

        if pyramid_levels is None:
            self.pyramid_levels = [3, 4, 5, 6, 7]

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
                boxes = np.expand_dims(boxes, axis=1)
                boxes_level.append(boxes)

            # concat anchors on the same level to the reshape NxAx4
            boxes_level = np.concatenate(boxes_level, axis=1)
            boxes_all.append(boxes_level.reshape([-1, 4]))

        anchor_boxes = np.vstack(boxes_all)
        anchor_boxes = torch.from_numpy(anchor_boxes.astype(dtype)).to(image.device)
        anchor_boxes = anchor_boxes.unsqueeze(0)

        # save it for later use to reduce overhead
        self.last_anchors[image.device] = anchor_boxes
        return anchor_boxes


class Regressor(nn.Module):
    """Box head shared over the P3-P7 levels (stand-in for the BiFPN outputs)."""

    def __init__(self, in_channels, num_anchors, num_layers=2):
        super().__init__()
        self.conv_list = nn.ModuleList([nn.Conv2d(in_channels, in_channels, 3, padding=1) for _ in range(num_layers)])
        self.header = nn.Conv2d(in_channels, num_anchors * 4, 3, padding=1)

    def forward(self, inputs):
        feats = []
        for feat in inputs:
            for conv in self.conv_list:
                feat = conv(feat)
                feat = feat * torch.sigmoid(feat)
            feat = self.header(feat)
            feat = feat.permute(0, 2, 3, 1)
            feat = feat.contiguous().view(feat.shape[0], -1, 4)
            feats.append(feat)
        feats = torch.cat(feats, dim=1)
        return feats


class EfficientDetBackbone(nn.Module):
    def __init__(self, fpn_num_filters=16):
        super().__init__()
        num_anchors = 9
        # stand-in feature extractor: strides 8, 16, 32, 64, 128 (P3-P7)
        self.stem = nn.Conv2d(3, fpn_num_filters, 3, stride=8, padding=1)
        self.downs = nn.ModuleList([nn.Conv2d(fpn_num_filters, fpn_num_filters, 3, stride=2, padding=1)
                                    for _ in range(4)])
        self.regressor = Regressor(fpn_num_filters, num_anchors)
        self.anchors = Anchors(anchor_scale=4.)

    def forward(self, inputs):
        p = torch.relu(self.stem(inputs))
        features = [p]
        for down in self.downs:
            p = torch.relu(down(p))
            features.append(p)

        regression = self.regressor(features)

        anchors = self.anchors(inputs, inputs.dtype)
        return regression, anchors


def make_model():
    return EfficientDetBackbone().eval()


def example_inputs():
    return (torch.randn(1, 3, 256, 256),)


def other_inputs():
    return [(torch.randn(2, 3, 384, 256),), (torch.randn(1, 3, 128, 384),)]


def probe_inputs():
    return other_inputs()
