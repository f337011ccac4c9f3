"""ONX615: mmdetection's per-level cut to the `nms_pre` best anchors, `if scores.shape[0] > nms_pre:`
around a topk (mmdeploy#2149) or a sort sliced to k. Both exporters keep the example's branch: the
level that had more anchors than k at the example cuts at every size (onnxruntime's TopK fails where
it has fewer), the one that had fewer keeps every anchor at every size. `_onnx_size_over` takes the
branch for every size under export, the ranking keeping the rows in order where there are not more."""
import torch
from torch import nn


class LevelCuts(nn.Module):
    def __init__(self, nms_pre=24):
        super().__init__()
        self.nms_pre = nms_pre

    def forward(self, scores, boxes, small):
        if 0 < self.nms_pre < scores.shape[0]:  # mmdetection 3.x spells it as a chain
            _, topk_inds = torch.topk(scores, self.nms_pre, dim=0)
            scores = scores[topk_inds]
            boxes = boxes[topk_inds, :]
        if small.shape[0] > self.nms_pre:
            ranked, rank_inds = small.sort(descending=True)
            small = ranked[:self.nms_pre]
        if boxes.shape[0] > self.nms_pre // 2:  # mmdet's multiclass_nms: its last column ranked
            _, inds = boxes[:, -1].sort(descending=True)
            inds = inds[:self.nms_pre // 2]
            boxes = boxes[inds]
        return scores * 2, boxes + 1, small - 1


def make_model():
    torch.manual_seed(0)
    return LevelCuts()


def example_inputs():
    return (torch.randn(40), torch.randn(40, 4), torch.randn(12))


def probe_inputs():
    return [(torch.randn(10), torch.randn(10, 4), torch.randn(30)),
            (torch.randn(60), torch.randn(60, 4), torch.randn(24))]


DYNAMIC = {0: {0: "anchors"}, 1: {0: "anchors"}, 2: {0: "small"}}
