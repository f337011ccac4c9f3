"""detectron2's Caffe2-style Fast R-CNN inference (`caffe2_fast_rcnn_outputs_inference`) builds the batch id column
of the detections with `torch.full((b, 1), i)` for `i, b in enumerate(int(x.item()) for x in roi_batch_splits_nms)`;
the PyTorch export team's commit says Dynamo cannot handle "using values within a tensor as the shape to create
another tensor" (the per-image detection counts). The thresholding stand-in replaces the C2 BoxWithNMSLimit op.

Source: https://github.com/facebookresearch/detectron2/commit/1511a34f8111de470c4b235d6497120bb4c4391e
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"box_features": {0: "batch", 1: "rois"}, "proposals": {0: "batch", 1: "rois"}}
BLIND = "domains-33"


def cat(tensors, dim=0):
    assert isinstance(tensors, (list, tuple))
    if len(tensors) == 1:
        return tensors[0]
    return torch.cat(tensors, dim)


def box_with_limit(class_prob, pred_boxes, score_thresh):
    # stands in for torch.ops._caffe2.BoxWithNMSLimit: per-image detections and their counts (float, as in C2)
    scores, classes = class_prob[..., :-1].max(-1)
    keep = scores > score_thresh
    roi_batch_splits_nms = keep.sum(1).to(class_prob.dtype)
    return scores[keep], pred_boxes[keep], classes[keep], roi_batch_splits_nms


class FastRCNNOutputs(nn.Module):
    def __init__(self, in_dim=32, num_classes=4, score_thresh=0.3):
        super().__init__()
        self.num_classes = num_classes
        self.test_score_thresh = score_thresh
        self.cls_score = nn.Linear(in_dim, num_classes + 1)
        self.bbox_pred = nn.Linear(in_dim, 4)

    def forward(self, box_features, proposals):
        class_logits = self.cls_score(box_features)
        class_prob = F.softmax(class_logits, -1)
        roi_pred_bbox = proposals + self.bbox_pred(box_features)
        device, dtype = proposals.device, proposals.dtype

        roi_score_nms, roi_bbox_nms, roi_class_nms, roi_batch_splits_nms = box_with_limit(
            class_prob, roi_pred_bbox, self.test_score_thresh
        )

        roi_batch_ids = cat(
            [
                torch.full((b, 1), i, dtype=dtype, device=device)
                for i, b in enumerate(int(x.item()) for x in roi_batch_splits_nms)
            ],
            dim=0,
        )
        return torch.cat([roi_batch_ids, roi_bbox_nms], dim=1), roi_score_nms, roi_class_nms


def make_model():
    return FastRCNNOutputs().eval()


def example_inputs():
    return (torch.randn(2, 50, 32) * 3, torch.rand(2, 50, 4) * 100)


def other_inputs():
    return [(torch.randn(3, 70, 32) * 3, torch.rand(3, 70, 4) * 100),
            (torch.randn(1, 30, 32) * 3, torch.rand(1, 30, 4) * 100)]


def probe_inputs():
    return other_inputs()
