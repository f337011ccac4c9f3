"""mmdetection test path: after the head's detections, `bbox2result` turns them into per-class results with
`bboxes = bboxes.cpu().numpy()` / `labels = labels.cpu().numpy()` and `[bboxes[labels == i, :] for i in
range(num_classes)]`; tools/pytorch2onnx.py fails at that line (TracerWarning "Converting a tensor to a
NumPy array", then "Can't call numpy() on Tensor that requires grad").

Source: https://github.com/open-mmlab/mmdetection/issues/3662
"""
import numpy as np
import torch
from torch import nn

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {"img": {2: "height", 3: "width"}}
BLIND = "domains-12"


def bbox2result(bboxes, labels, num_classes):
    if bboxes.shape[0] == 0:
        return [np.zeros((0, 5), dtype=np.float32) for i in range(num_classes)]
    else:
        bboxes = bboxes.cpu().numpy()
        labels = labels.cpu().numpy()
        return [bboxes[labels == i, :] for i in range(num_classes)]


class SingleStageDetector(nn.Module):
    def __init__(self, num_classes=3, stride=8, max_per_img=20):
        super().__init__()
        self.num_classes, self.stride, self.max_per_img = num_classes, stride, max_per_img
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
                                      nn.Conv2d(16, 16, 3, stride=2, padding=1), nn.ReLU(),
                                      nn.Conv2d(16, 16, 3, stride=2, padding=1), nn.ReLU())
        self.cls_head = nn.Conv2d(16, num_classes, 3, padding=1)
        self.reg_head = nn.Conv2d(16, 4, 3, padding=1)

    def forward(self, img):
        feat = self.backbone(img)
        cls_score = self.cls_head(feat).sigmoid()
        bbox_pred = self.reg_head(feat).exp() * self.stride
        h, w = feat.shape[-2:]
        ys, xs = torch.meshgrid(torch.arange(h, device=img.device), torch.arange(w, device=img.device), indexing="ij")
        points = torch.stack([xs, ys], -1).reshape(-1, 2).float() * self.stride + self.stride // 2
        scores = cls_score[0].permute(1, 2, 0).reshape(-1, self.num_classes)
        dist = bbox_pred[0].permute(1, 2, 0).reshape(-1, 4)
        bboxes = torch.cat([points - dist[:, :2], points + dist[:, 2:]], -1)
        max_scores, labels = scores.max(dim=1)
        topk_scores, topk_inds = max_scores.topk(self.max_per_img)
        det_bboxes = torch.cat([bboxes[topk_inds], topk_scores[:, None]], -1)
        det_labels = labels[topk_inds]
        bbox_results = bbox2result(det_bboxes, det_labels, self.num_classes)
        return bbox_results


def make_model():
    return SingleStageDetector().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(1, 3, 96, 48),), (torch.randn(1, 3, 40, 80),)]


def probe_inputs():
    return other_inputs()
