"""detectron2 DenseDetector (RetinaNet/FCOS) `_decode_per_level_predictions`: after thresholding the scores it
keeps `topk_idxs = torch.nonzero(keep_idxs)` and takes `num_topk = min(topk_candidates, topk_idxs.size(0))`
with Python `min()` before `pred_scores.topk(num_topk)`; the maintainers note the decode "cannot be traced due
to certain implementation" (the candidate count is frozen at the export image) and switch to torch.clamp when tracing.

Source: https://github.com/facebookresearch/detectron2/pull/4835
"""
import math

import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "scalars"
DYNAMIC = {"images": {2: "height", 3: "width"}}
BLIND = "domains-26"

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
    def __init__(self, weights=(1.0, 1.0, 1.0, 1.0), scale_clamp=_DEFAULT_SCALE_CLAMP):
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
    def __init__(self, num_classes=8, num_anchors=3, stride=8):
        super().__init__()
        self.num_classes = num_classes
        self.stride = stride
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.ReLU(), nn.Conv2d(16, 16, 3, 2, 1), nn.ReLU(),
                                      nn.Conv2d(16, 16, 3, 2, 1), nn.ReLU())
        self.cls_score = nn.Conv2d(16, num_anchors * num_classes, 3, padding=1)
        self.bbox_pred = nn.Conv2d(16, num_anchors * 4, 3, padding=1)
        self.register_buffer("cell_anchors", torch.tensor([[-16., -16., 16., 16.], [-24., -12., 24., 12.],
                                                           [-12., -24., 12., 24.]]))
        self.box2box_transform = Box2BoxTransform()
        nn.init.normal_(self.cls_score.weight, std=0.5)
        self.test_score_thresh = 0.05
        self.test_topk_candidates = 1000

    def grid_anchors(self, feat):
        grid_height, grid_width = feat.shape[-2:]
        shifts_x = torch.arange(0, grid_width * self.stride, step=self.stride, dtype=torch.float32)
        shifts_y = torch.arange(0, grid_height * self.stride, step=self.stride, dtype=torch.float32)
        shift_y, shift_x = torch.meshgrid(shifts_y, shifts_x, indexing="ij")
        shift_x = shift_x.reshape(-1)
        shift_y = shift_y.reshape(-1)
        shifts = torch.stack((shift_x, shift_y, shift_x, shift_y), dim=1)
        return (shifts.view(-1, 1, 4) + self.cell_anchors.view(1, -1, 4)).reshape(-1, 4)

    def _decode_per_level_predictions(self, anchors, pred_scores, pred_deltas, score_thresh, topk_candidates):
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

    def forward(self, images):
        feat = self.backbone(images)
        anchors = self.grid_anchors(feat)
        pred_logits = permute_to_N_HWA_K(self.cls_score(feat), self.num_classes)
        pred_anchor_deltas = permute_to_N_HWA_K(self.bbox_pred(feat), 4)
        # single image inference
        scores_per_image = pred_logits[0].sigmoid()
        deltas_per_image = pred_anchor_deltas[0]
        return self._decode_per_level_predictions(
            anchors, scores_per_image, deltas_per_image, self.test_score_thresh, self.test_topk_candidates)


def make_model():
    return RetinaNetLite().eval()


def example_inputs():
    return (torch.randn(1, 3, 128, 128),)


def other_inputs():
    return [(torch.randn(1, 3, 64, 48),), (torch.randn(1, 3, 40, 56),)]


def probe_inputs():
    return other_inputs()
