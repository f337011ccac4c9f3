"""ONX101 on NumPy anchors built from the image size (EfficientDet's and RetinaNet's generators):
np.arange / np.meshgrid per level, boxes appended to lists of arrays and joined by
np.concatenate / np.vstack, np.append onto an empty float32 array, `astype` to a dtype held in a
variable, and the arrays handed back through `torch.from_numpy` and the legacy `torch.Tensor`.
torch.export cannot convert the object arrays NumPy makes of symbolic sizes, and the legacy
exporter bakes the export-time anchors in. Fixed by the torch twins (kept behind
`torch.onnx.is_in_onnx_export()`: a float `np.arange` computes its points its own way), the lists
holding tensors, `torch.cat((a, b), dim=0)` for np.append and `.to(dtype, copy=True)` for astype."""
import itertools

import numpy as np
import torch
from torch import nn


class AnchorHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.strides = [8, 16]
        self.scales = [2 ** 0, 2 ** (1.0 / 3.0)]
        self.ratios = [(1.0, 1.0), (1.4, 0.7)]
        self.half = False

    def level_boxes(self, image_shape):
        if self.half:
            dtype = np.float16
        else:
            dtype = np.float32
        boxes_all = []
        for stride in self.strides:
            boxes_level = []
            for scale, ratio in itertools.product(self.scales, self.ratios):
                size_x = 4.0 * stride * scale * ratio[0] / 2.0
                size_y = 4.0 * stride * scale * ratio[1] / 2.0
                x = np.arange(stride / 2, image_shape[1], stride)
                y = np.arange(stride / 2, image_shape[0], stride)
                xv, yv = np.meshgrid(x, y)
                xv = xv.reshape(-1)
                yv = yv.reshape(-1)
                boxes = np.vstack((yv - size_y, xv - size_x, yv + size_y, xv + size_x))
                boxes = np.swapaxes(boxes, 0, 1)
                boxes_level.append(np.expand_dims(boxes, axis=1))
            boxes_level = np.concatenate(boxes_level, axis=1)
            boxes_all.append(boxes_level.reshape([-1, 4]))
        anchor_boxes = np.vstack(boxes_all)
        return torch.from_numpy(anchor_boxes.astype(dtype))

    def centers(self, image):
        all_centers = np.zeros((0, 2)).astype(np.float32)
        for stride in self.strides:
            shifts = np.arange(0, image.shape[3] // stride) * stride + 0.5
            level = np.stack([shifts, shifts + stride], axis=1)
            all_centers = np.append(all_centers, level, axis=0)
        return torch.Tensor(all_centers)

    def forward(self, image):
        anchors = self.level_boxes(image.shape[2:])
        centers = self.centers(image)
        return image.mean() * anchors, centers * image.std()


def make_model():
    torch.manual_seed(0)  # the inputs are drawn after it
    return AnchorHead()


def example_inputs():
    return (torch.randn(1, 3, 32, 48),)


def probe_inputs():
    return [(torch.randn(2, 3, 64, 32),), (torch.randn(1, 3, 48, 80),)]


DYNAMIC = {0: {0: "b", 2: "h", 3: "w"}}
