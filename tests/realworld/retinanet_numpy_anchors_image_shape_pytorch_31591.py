"""RetinaNet (pytorch-retinanet style) exported to ONNX: the `Anchors` module builds the anchors in NumPy from
`np.array(image.shape[2:])` (np.arange / np.meshgrid / np.append per pyramid level) and returns
`torch.from_numpy(all_anchors)`; the export warns "Converting a tensor to a Python integer" and
"torch.from_numpy results are registered as constants in the trace", then fails with "output of traced region did not
have observable data dependence with trace inputs", and the anchors are frozen to the export image size.
(ResNet+FPN reduced to stride-2 convs with the same level sizes; heads reduced to one conv each.)

Source: https://github.com/pytorch/pytorch/issues/31591
"""
import numpy as np
import torch
import torch.nn as nn

CLASS = "numpy-from-shape"
FAMILY = "numpy_interop"
DYNAMIC = {"img_batch": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-51"


def generate_anchors(base_size=16, ratios=None, scales=None):
    if ratios is None:
        ratios = np.array([0.5, 1, 2])
    if scales is None:
        scales = np.array([2 ** 0, 2 ** (1.0 / 3.0), 2 ** (2.0 / 3.0)])
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
    all_anchors = all_anchors.reshape((K * A, 4))
    return all_anchors


class Anchors(nn.Module):
    def __init__(self, pyramid_levels=None, strides=None, sizes=None, ratios=None, scales=None):
        super(Anchors, self).__init__()
        if pyramid_levels is None:
            self.pyramid_levels = [3, 4, 5, 6, 7]
        if strides is None:
            self.strides = [2 ** x for x in self.pyramid_levels]
        if sizes is None:
            self.sizes = [2 ** (x + 2) for x in self.pyramid_levels]
        if ratios is None:
            self.ratios = np.array([0.5, 1, 2])
        if scales is None:
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
        if torch.cuda.is_available():
            return torch.from_numpy(all_anchors.astype(np.float32)).cuda()
        else:
            return torch.from_numpy(all_anchors.astype(np.float32))


class BBoxTransform(nn.Module):
    def __init__(self, mean=None, std=None):
        super(BBoxTransform, self).__init__()
        self.mean = torch.from_numpy(np.array([0, 0, 0, 0]).astype(np.float32)) if mean is None else mean
        self.std = torch.from_numpy(np.array([0.1, 0.1, 0.2, 0.2]).astype(np.float32)) if std is None else std

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
        pred_boxes_x1 = pred_ctr_x - 0.5 * pred_w
        pred_boxes_y1 = pred_ctr_y - 0.5 * pred_h
        pred_boxes_x2 = pred_ctr_x + 0.5 * pred_w
        pred_boxes_y2 = pred_ctr_y + 0.5 * pred_h
        return torch.stack([pred_boxes_x1, pred_boxes_y1, pred_boxes_x2, pred_boxes_y2], dim=2)


class RetinaNetLite(nn.Module):
    def __init__(self, num_classes=4, num_anchors=9, feature_size=32):
        super().__init__()
        self.num_classes = num_classes
        self.p3 = nn.Sequential(nn.Conv2d(3, feature_size, 3, 2, 1), nn.ReLU(),
                                nn.Conv2d(feature_size, feature_size, 3, 2, 1), nn.ReLU(),
                                nn.Conv2d(feature_size, feature_size, 3, 2, 1), nn.ReLU())
        self.down = nn.ModuleList([nn.Conv2d(feature_size, feature_size, 3, 2, 1) for _ in range(4)])
        self.regression = nn.Conv2d(feature_size, num_anchors * 4, 3, padding=1)
        self.classification = nn.Conv2d(feature_size, num_anchors * num_classes, 3, padding=1)
        self.anchors = Anchors()
        self.regressBoxes = BBoxTransform()

    def forward(self, img_batch):
        features = [self.p3(img_batch)]
        for conv in self.down:
            features.append(conv(features[-1]))
        regression = torch.cat([self.regression(f).permute(0, 2, 3, 1).contiguous().view(f.shape[0], -1, 4)
                                for f in features], dim=1)
        classification = torch.cat([torch.sigmoid(self.classification(f)).permute(0, 2, 3, 1).contiguous()
                                    .view(f.shape[0], -1, self.num_classes) for f in features], dim=1)
        anchors = self.anchors(img_batch)
        transformed_anchors = self.regressBoxes(anchors, regression)
        return transformed_anchors, classification


def make_model():
    return RetinaNetLite().eval()


def example_inputs():
    return (torch.randn(1, 3, 256, 320),)


def other_inputs():
    return [(torch.randn(2, 3, 192, 384),), (torch.randn(1, 3, 300, 200),)]


def probe_inputs():
    return other_inputs()
