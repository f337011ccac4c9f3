"""EfficientDet (signatrix) inference: the `Anchors` module turns `image.shape[2:]` into a NumPy array,
builds every pyramid level's anchors in NumPy and returns `torch.from_numpy(...)`; the exporter warns
that the shape becomes a constant and `torch.from_numpy` results are registered as constants.

Source: https://github.com/signatrix/efficientdet/issues/46
"""
import numpy as np
import torch
from torch import nn

CLASS = "numpy-from-shape"
FAMILY = "numpy_interop"
DYNAMIC = {"img_batch": {2: "height", 3: "width"}}
BLIND = "domains-7"


def generate_anchors(base_size=16, ratios=None, scales=None):
    num_anchors = len(ratios) * len(scales)
    anchors = np.zeros((num_anchors, 4))
    anchors[:, 2:] = base_size * np.tile(scales, (2, len(ratios))).T
    areas = anchors[:, 2] * anchors[:, 3]
    anchors[:, 2] = np.sqrt(areas / np.repeat(ratios, len(scales)))
    anchors[:, 3] = anchors[:, 2] * np.repeat(ratios, len(scales))
    anchors[:, 0::2] -= np.tile(anchors[:, 2] * 0.5, (2, 1)).T
    anchors[:, 1::2] -= np.tile(anchors[:, 3] * 0.5, (2, 1)).T
    return anchors


def shift(shape, stride, anchors):
    shift_x = (np.arange(0, shape[1]) + 0.5) * stride
    shift_y = (np.arange(0, shape[0]) + 0.5) * stride
    shift_x, shift_y = np.meshgrid(shift_x, shift_y)
    shifts = np.vstack((shift_x.ravel(), shift_y.ravel(), shift_x.ravel(), shift_y.ravel())).transpose()
    A = anchors.shape[0]
    K = shifts.shape[0]
    all_anchors = (anchors.reshape((1, A, 4)) + shifts.reshape((1, K, 4)).transpose((1, 0, 2)))
    return all_anchors.reshape((K * A, 4))


class Anchors(nn.Module):
    def __init__(self):
        super(Anchors, self).__init__()
        self.pyramid_levels = [3, 4, 5, 6, 7]
        self.strides = [2 ** x for x in self.pyramid_levels]
        self.sizes = [2 ** (x + 2) for x in self.pyramid_levels]
        self.ratios = np.array([0.5, 1, 2])
        self.scales = np.array([2 ** 0, 2 ** (1.0 / 3.0), 2 ** (2.0 / 3.0)])

    def forward(self, image):
        image_shape = image.shape[2:]
        image_shape = np.array(image_shape)
        image_shapes = [(image_shape + 2 ** x - 1) // (2 ** x) for x in self.pyramid_levels]

        all_anchors = np.zeros((0, 4)).astype(np.float32)
        for idx, p in enumerate(self.pyramid_levels):
            anchors = generate_anchors(base_size=self.sizes[idx], ratios=self.ratios, scales=self.scales)
            shifted_anchors = shift(image_shapes[idx], self.strides[idx], anchors)
            all_anchors = np.append(all_anchors, shifted_anchors, axis=0)

        all_anchors = np.expand_dims(all_anchors, axis=0)
        anchors = torch.from_numpy(all_anchors.astype(np.float32))
        return anchors


class BBoxTransform(nn.Module):
    def __init__(self):
        super(BBoxTransform, self).__init__()
        self.mean = torch.from_numpy(np.array([0, 0, 0, 0]).astype(np.float32))
        self.std = torch.from_numpy(np.array([0.1, 0.1, 0.2, 0.2]).astype(np.float32))

    def forward(self, boxes, deltas):
        widths = boxes[:, :, 2] - boxes[:, :, 0]
        heights = boxes[:, :, 3] - boxes[:, :, 1]
        ctr_x = boxes[:, :, 0] + 0.5 * widths
        ctr_y = boxes[:, :, 1] + 0.5 * heights
        dx = deltas[:, :, 0] * self.std[0] + self.mean[0]
        dy = deltas[:, :, 1] * self.std[1] + self.mean[1]
        dw = deltas[:, :, 2] * self.std[2] + self.mean[2]
        dh = deltas[:, :, 3] * self.std[3] + self.mean[3]
        pred_ctr_x = ctr_x + dx * widths
        pred_ctr_y = ctr_y + dy * heights
        pred_w = torch.exp(dw) * widths
        pred_h = torch.exp(dh) * heights
        return torch.stack([pred_ctr_x - 0.5 * pred_w, pred_ctr_y - 0.5 * pred_h,
                            pred_ctr_x + 0.5 * pred_w, pred_ctr_y + 0.5 * pred_h], dim=2)


class Head(nn.Module):
    def __init__(self, in_channels, num_anchors, out_per_anchor):
        super().__init__()
        self.header = nn.Conv2d(in_channels, num_anchors * out_per_anchor, kernel_size=3, padding=1)
        self.out_per_anchor = out_per_anchor

    def forward(self, x):
        x = self.header(x).permute(0, 2, 3, 1)
        return x.contiguous().view(x.shape[0], -1, self.out_per_anchor)


class EfficientDet(nn.Module):
    def __init__(self, num_classes=4, c=16):
        super().__init__()
        self.stem = nn.Sequential(*[nn.Conv2d(3 if i == 0 else c, c, 3, stride=2, padding=1) for i in range(3)])
        self.downs = nn.ModuleList([nn.Conv2d(c, c, 3, stride=2, padding=1) for _ in range(4)])
        self.regressor = Head(c, 9, 4)
        self.classifier = Head(c, 9, num_classes)
        self.anchors = Anchors()
        self.regressBoxes = BBoxTransform()

    def forward(self, img_batch):
        p = self.stem(img_batch)
        features = [p]
        for down in self.downs:
            p = down(p)
            features.append(p)
        regression = torch.cat([self.regressor(feature) for feature in features], dim=1)
        classification = torch.cat([self.classifier(feature).sigmoid() for feature in features], dim=1)
        anchors = self.anchors(img_batch)
        transformed_anchors = self.regressBoxes(anchors, regression)
        return classification, transformed_anchors


def make_model():
    return EfficientDet().eval()


def example_inputs():
    return (torch.randn(1, 3, 128, 128),)


def other_inputs():
    return [(torch.randn(1, 3, 192, 160),), (torch.randn(1, 3, 96, 224),)]


def probe_inputs():
    return other_inputs()
