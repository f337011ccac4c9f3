"""detectron2 DenseDetector (RetinaNet/FCOS) inference: `_decode_per_level_predictions` keeps the scores above
the threshold with `torch.nonzero(keep_idxs)` and then takes `num_topk = min(topk_candidates, topk_idxs.size(0))`
for `pred_scores.topk(num_topk)`; the commit "fix tracing issue of DenseDetector" says this cannot be traced and
switched to `torch.clamp` on the traced size.

Source: https://github.com/facebookresearch/detectron2/commit/cda4395dc23904223dd4db16eda135a4f149157f
"""
import math
from typing import List, Tuple

import torch
from torch import Tensor, nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"images": {2: "height", 3: "width"}}
BLIND = "domains-60"

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


class Box2BoxTransform(object):
    def __init__(self, weights: Tuple[float, float, float, float], scale_clamp: float = _DEFAULT_SCALE_CLAMP):
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


class RetinaNetLite(nn.Module):
    """One feature level of a RetinaNet-style DenseDetector (backbone + head trimmed to a few convs)."""

    def __init__(self, num_classes=4, num_anchors=3, stride=8, test_score_thresh=0.05, test_topk_candidates=100):
        super().__init__()
        self.num_classes = num_classes
        self.num_anchors = num_anchors
        self.stride = stride
        self.sizes = [32.0, 40.0, 50.0]
        self.test_score_thresh = test_score_thresh
        self.test_topk_candidates = test_topk_candidates
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(16, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(16, 16, 3, stride=2, padding=1), nn.ReLU(),
        )
        self.cls_score = nn.Conv2d(16, num_anchors * num_classes, 3, padding=1)
        self.bbox_pred = nn.Conv2d(16, num_anchors * 4, 3, padding=1)
        self.box2box_transform = Box2BoxTransform(weights=(1.0, 1.0, 1.0, 1.0))

    def anchors(self, feat):
        grid_height, grid_width = feat.shape[-2:]
        shifts_x = torch.arange(0, grid_width * self.stride, step=self.stride, dtype=torch.float32)
        shifts_y = torch.arange(0, grid_height * self.stride, step=self.stride, dtype=torch.float32)
        shift_y, shift_x = torch.meshgrid(shifts_y, shifts_x, indexing="ij")
        shift_x = shift_x.reshape(-1)
        shift_y = shift_y.reshape(-1)
        shifts = torch.stack((shift_x, shift_y, shift_x, shift_y), dim=1)
        cell = torch.tensor([[-s / 2, -s / 2, s / 2, s / 2] for s in self.sizes])
        return (shifts.view(-1, 1, 4) + cell.view(1, -1, 4)).reshape(-1, 4)

    def _decode_per_level_predictions(
        self,
        anchors: Tensor,
        pred_scores: Tensor,
        pred_deltas: Tensor,
        score_thresh: float,
        topk_candidates: int,
        image_size: Tuple[int, int],
    ):
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

        pred_boxes = self.box2box_transform.apply_deltas(
            pred_deltas[anchor_idxs], anchors[anchor_idxs]
        )
        return pred_boxes, pred_scores, classes_idxs

    def forward(self, images):
        feat = self.backbone(images)
        anchors = self.anchors(feat)
        pred_logits = permute_to_N_HWA_K(self.cls_score(feat), self.num_classes)
        pred_anchor_deltas = permute_to_N_HWA_K(self.bbox_pred(feat), 4)
        image_size = images.shape[-2:]
        # inference_single_image (one image per call, as in detectron2's export)
        scores_per_image = pred_logits[0].sigmoid_()
        return self._decode_per_level_predictions(
            anchors, scores_per_image, pred_anchor_deltas[0],
            self.test_score_thresh, self.test_topk_candidates, image_size,
        )


def make_model():
    return RetinaNetLite().eval()


def example_inputs():
    return (torch.randn(1, 3, 32, 40),)


def other_inputs():
    return [(torch.randn(1, 3, 16, 16),), (torch.randn(1, 3, 48, 64),)]


def probe_inputs():
    return other_inputs()
