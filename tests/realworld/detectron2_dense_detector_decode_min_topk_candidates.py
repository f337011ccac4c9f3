"""detectron2 DenseDetector (RetinaNet/FCOS base) inference: `_decode_per_level_predictions` keeps the boxes
above `score_thresh` with `torch.nonzero` and then takes `num_topk = min(topk_candidates, topk_idxs.size(0))`
before `pred_scores.topk(num_topk)`; the commit says this "cannot be traced" (the tracer turns the Python `min`
of the data-dependent count into a constant) and switches to `torch.clamp` when tracing.
(One feature level, 3 anchors, 4 classes, RetinaNet-style head, batch of one image as in detectron2 inference.)

Source: https://github.com/facebookresearch/detectron2/commit/80e2673da161f57afe37ef769836a61976108ef1
"""
import math

import torch
from torch import Tensor, nn

CLASS = "data-dependent-size"
FAMILY = "scalars"
DYNAMIC = {"x": {2: "height", 3: "width"}}
BLIND = "domains-57"

_DEFAULT_SCALE_CLAMP = math.log(1000.0 / 16)


def permute_to_N_HWA_K(tensor, K: int):
    """
    Transpose/reshape a tensor from (N, (Ai x K), H, W) to (N, (HxWxAi), K)
    """
    assert tensor.dim() == 4, tensor.shape
    N, _, H, W = tensor.shape
    tensor = tensor.view(N, -1, K, H, W)
    tensor = tensor.permute(0, 3, 4, 1, 2)
    tensor = tensor.reshape(N, -1, K)  # Size=(N,HWA,K)
    return tensor


class Box2BoxTransform:
    def __init__(self, weights, scale_clamp: float = _DEFAULT_SCALE_CLAMP):
        self.weights = weights
        self.scale_clamp = scale_clamp

    def apply_deltas(self, deltas, boxes):
        deltas = deltas.float()  # ensure fp32 for decoding precision
        boxes = boxes.to(deltas.dtype)

        widths = boxes[:, 2] - boxes[:, 0]
        heights = boxes[:, 3] - boxes[:, 1]
        ctr_x = boxes[:, 0] + 0.5 * widths
        ctr_y = boxes[:, 1] + 0.5 * heights

        wx, wy, ww, wh = self.weights
        dx = deltas[:, 0::4] / wx
        dy = deltas[:, 1::4] / wy
        dw = deltas[:, 2::4] / ww
        dh = deltas[:, 3::4] / wh

        # Prevent sending too large values into torch.exp()
        dw = torch.clamp(dw, max=self.scale_clamp)
        dh = torch.clamp(dh, max=self.scale_clamp)

        pred_ctr_x = dx * widths[:, None] + ctr_x[:, None]
        pred_ctr_y = dy * heights[:, None] + ctr_y[:, None]
        pred_w = torch.exp(dw) * widths[:, None]
        pred_h = torch.exp(dh) * heights[:, None]

        x1 = pred_ctr_x - 0.5 * pred_w
        y1 = pred_ctr_y - 0.5 * pred_h
        x2 = pred_ctr_x + 0.5 * pred_w
        y2 = pred_ctr_y + 0.5 * pred_h
        pred_boxes = torch.stack((x1, y1, x2, y2), dim=-1)
        return pred_boxes.reshape(deltas.shape)


class RetinaNetLevel(nn.Module):
    def __init__(self, num_classes=4, num_anchors=3, stride=8):
        super().__init__()
        self.num_classes = num_classes
        self.stride = stride
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, stride, 1), nn.ReLU())
        self.cls_score = nn.Conv2d(16, num_anchors * num_classes, 3, 1, 1)
        self.bbox_pred = nn.Conv2d(16, num_anchors * 4, 3, 1, 1)
        sizes = torch.tensor([16.0, 24.0, 32.0])
        self.register_buffer("cell_anchors", torch.stack([-sizes / 2, -sizes / 2, sizes / 2, sizes / 2], dim=1))
        self.box2box_transform = Box2BoxTransform(weights=(1.0, 1.0, 1.0, 1.0))
        self.test_score_thresh = 0.05
        self.test_topk_candidates = 100

    def grid_anchors(self, feat):
        grid_height, grid_width = feat.shape[-2:]
        shifts_x = torch.arange(0, grid_width * self.stride, step=self.stride, dtype=torch.float32)
        shifts_y = torch.arange(0, grid_height * self.stride, step=self.stride, dtype=torch.float32)
        shift_y, shift_x = torch.meshgrid(shifts_y, shifts_x, indexing="ij")
        shift_x = shift_x.reshape(-1)
        shift_y = shift_y.reshape(-1)
        shifts = torch.stack((shift_x, shift_y, shift_x, shift_y), dim=1)
        return (shifts.view(-1, 1, 4) + self.cell_anchors.view(1, -1, 4)).reshape(-1, 4)

    def _decode_per_level_predictions(self, anchors: Tensor, pred_scores: Tensor, pred_deltas: Tensor,
                                      score_thresh: float, topk_candidates: int):
        # Apply two filtering to make NMS faster.
        # 1. Keep boxes with confidence score higher than threshold
        keep_idxs = pred_scores > score_thresh
        pred_scores = pred_scores[keep_idxs]
        topk_idxs = torch.nonzero(keep_idxs)  # Kx2

        # 2. Keep top k top scoring boxes only
        num_topk = min(topk_candidates, topk_idxs.size(0))
        pred_scores, idxs = pred_scores.topk(num_topk)
        topk_idxs = topk_idxs[idxs]

        anchor_idxs, classes_idxs = topk_idxs.unbind(dim=1)

        pred_boxes = self.box2box_transform.apply_deltas(pred_deltas[anchor_idxs], anchors[anchor_idxs])
        return pred_boxes, pred_scores, classes_idxs

    def forward(self, x):
        features = self.backbone(x)
        anchors = self.grid_anchors(features)
        box_cls = permute_to_N_HWA_K(self.cls_score(features), self.num_classes)
        box_delta = permute_to_N_HWA_K(self.bbox_pred(features), 4)
        scores_per_image = box_cls[0].sigmoid_().flatten().view(-1, self.num_classes)
        return self._decode_per_level_predictions(
            anchors, scores_per_image, box_delta[0], self.test_score_thresh, self.test_topk_candidates)


def make_model():
    return RetinaNetLevel().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(1, 3, 48, 80),), (torch.randn(1, 3, 24, 16),)]


def probe_inputs():
    return other_inputs()
