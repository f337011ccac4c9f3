"""CenterNet2 (as used by CoDet) proposal post-processing: `nms_and_topK` keeps the top `post_nms_topk`
proposals with `if num_dets > post_nms_topk:` and `image_thresh = torch.kthvalue(scores, num_dets -
post_nms_topk + 1)` then `keep = cls_scores >= image_thresh.item()`; the report's exported graph has a TopK whose
K depends on the per-image detection count (TensorRT: "only supports input K as an initializer"), and the user
had to replace the per-image threshold by a constant. (Heatmap decoding of `predict_single_level` kept; ml_nms
skipped with `nms=False`.)

Source: https://github.com/CVMI-Lab/CoDet/issues/3
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "control_flow"
DYNAMIC = {"hm": {2: "height", 3: "width"}, "reg": {2: "height", 3: "width"}}
BLIND = "domains-17"


class Instances:
    def __init__(self, scores, pred_boxes):
        self.scores = scores
        self.pred_boxes = pred_boxes

    def __len__(self):
        return self.scores.shape[0]

    def __getitem__(self, item):
        return Instances(self.scores[item], self.pred_boxes[item])


class CenterNetProposals(nn.Module):
    def __init__(self, score_thresh=0.05, pre_nms_topk_test=1000, post_nms_topk_test=16, stride=8):
        super().__init__()
        self.score_thresh = score_thresh
        self.pre_nms_topk_test = pre_nms_topk_test
        self.post_nms_topk_test = post_nms_topk_test
        self.post_nms_topk_train = 2000
        self.stride = stride

    def predict_single_level(self, heatmap, box_regression):
        N, C, H, W = heatmap.shape
        shifts_x = torch.arange(0, W * self.stride, step=self.stride, dtype=torch.float32)
        shifts_y = torch.arange(0, H * self.stride, step=self.stride, dtype=torch.float32)
        shift_y, shift_x = torch.meshgrid(shifts_y, shifts_x, indexing="ij")
        grids = torch.stack((shift_x.reshape(-1), shift_y.reshape(-1)), dim=1) + self.stride // 2
        heatmap = heatmap.permute(0, 2, 3, 1).reshape(N, -1, C)  # N x HW x C
        box_regression = box_regression.view(N, 4, H, W).permute(0, 2, 3, 1).reshape(N, -1, 4)
        candidate_inds = heatmap > self.score_thresh  # 0.05
        results = []
        for i in range(N):
            per_box_cls = heatmap[i]  # HW x C
            per_candidate_inds = candidate_inds[i]  # n
            per_box_cls = per_box_cls[per_candidate_inds]  # n
            per_candidate_nonzeros = per_candidate_inds.nonzero()  # n
            per_box_loc = per_candidate_nonzeros[:, 0]  # n
            per_box_regression = box_regression[i][per_box_loc]  # n x 4
            per_grids = grids[per_box_loc]  # n x 2
            detections = torch.stack([
                per_grids[:, 0] - per_box_regression[:, 0],
                per_grids[:, 1] - per_box_regression[:, 1],
                per_grids[:, 0] + per_box_regression[:, 2],
                per_grids[:, 1] + per_box_regression[:, 3],
            ], dim=1)  # n x 4
            results.append(Instances(per_box_cls, detections))
        return results

    @torch.no_grad()
    def nms_and_topK(self, boxlists, nms=True):
        num_images = len(boxlists)
        results = []
        for i in range(num_images):
            result = boxlists[i]
            num_dets = len(result)
            post_nms_topk = self.post_nms_topk_train if self.training else \
                self.post_nms_topk_test
            if num_dets > post_nms_topk:
                cls_scores = result.scores
                image_thresh, _ = torch.kthvalue(
                    cls_scores.float().cpu(),
                    num_dets - post_nms_topk + 1
                )
                keep = cls_scores >= image_thresh.item()
                keep = torch.nonzero(keep).squeeze(1)
                result = result[keep]
            results.append(result)
        return results

    def forward(self, hm, reg):
        boxlists = self.predict_single_level(hm.sigmoid(), reg.relu() * self.stride)
        proposals = self.nms_and_topK(boxlists, nms=False)
        return proposals[0].pred_boxes, proposals[0].scores


def make_model():
    return CenterNetProposals().eval()


def example_inputs():
    return (torch.randn(1, 1, 12, 16), torch.randn(1, 4, 12, 16))


def other_inputs():
    # one set with fewer candidates than post_nms_topk (the branch not taken), one with many more
    return [(torch.randn(1, 1, 3, 4) - 2.0, torch.randn(1, 4, 3, 4)),
            (torch.randn(1, 1, 20, 10), torch.randn(1, 4, 20, 10))]


def probe_inputs():
    return other_inputs()
