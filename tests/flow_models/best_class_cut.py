"""ONX615 on mmdetection 2's FCOS head (`_get_bboxes_single`, before mmdetection#4699): a level's
points are cut to the `nms_pre` with the best class score times centerness, `if nms_pre > 0 and
scores.shape[0] > nms_pre: max_scores, _ = (scores * centerness[:, None]).max(dim=1)` then a topk
of those, only where the level has more points; the detector is reached through `forward =
simple_test`. Exported where the level has fewer points, both exporters keep every point at every
size. `_onnx_size_over` takes the branch for every size under export, the ranking keeping the rows
in order where there are not more."""
import torch
from torch import nn


class BestClassCut(nn.Module):
    def __init__(self, nms_pre=24):
        super().__init__()
        self.nms_pre = nms_pre

    def simple_test(self, scores, centerness, boxes):
        nms_pre = self.nms_pre
        if nms_pre > 0 and scores.shape[0] > nms_pre:
            max_scores, _ = (scores * centerness[:, None]).max(dim=1)
            _, topk_inds = max_scores.topk(nms_pre)
            boxes = boxes[topk_inds, :]
            scores = scores[topk_inds, :]
            centerness = centerness[topk_inds]
        return boxes * centerness[:, None], scores.sigmoid()

    forward = simple_test


def make_model():
    torch.manual_seed(0)
    return BestClassCut()


def example_inputs():
    return (torch.randn(12, 3), torch.rand(12), torch.randn(12, 4))


def probe_inputs():
    return [(torch.randn(40, 3), torch.rand(40), torch.randn(40, 4)),
            (torch.randn(30, 3), torch.rand(30), torch.randn(30, 4))]


DYNAMIC = {0: {0: "points"}, 1: {0: "points"}, 2: {0: "points"}}
