"""Mask R-CNN export wrapper: torchvision's detector returns one dict per image, and the user's wrapper
loops `for result in outputs:` / `box, label, score, mask = result.values()` to return the lists
`boxes, labels, scores, masks`, hoping to get a batch dimension in the ONNX outputs with a dynamic batch
axis; the exported graph keeps the per-image output structure of the export batch instead.
(The torchvision model is replaced by a small stand-in with the same list-of-dicts interface.)

Source: https://techqa.club/v/q/customize-pytorch-model-export-to-onnx-76928530
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "outputs"
FAMILY = "control_flow"
DYNAMIC = {"input": {0: "batch"}}
BLIND = "domains-21"


class TinyMaskRCNN(nn.Module):
    """Stand-in for maskrcnn_resnet50_fpn in eval mode: batch in, list of per-image result dicts out."""

    def __init__(self, num_classes=7, detections_per_img=5, stride=4):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.ReLU(), nn.Conv2d(16, 16, 3, 2, 1), nn.ReLU())
        self.cls_score = nn.Conv2d(16, num_classes, 1)
        self.bbox_pred = nn.Conv2d(16, 4, 1)
        self.mask_fcn_logits = nn.Conv2d(16, 1, 1)
        self.detections_per_img = detections_per_img
        self.stride = stride

    def forward(self, images):
        original_image_sizes = []
        for img in images:
            val = img.shape[-2:]
            original_image_sizes.append((val[0], val[1]))
        features = self.backbone(images)
        class_logits = self.cls_score(features)
        box_regression = self.bbox_pred(features)
        mask_logits = self.mask_fcn_logits(features)
        fw = features.shape[-1]
        result = []
        for i, image_size in enumerate(original_image_sizes):
            scores_all, labels_all = class_logits[i].sigmoid().flatten(1).max(0)
            scores, idx = scores_all.topk(self.detections_per_img)
            labels = labels_all[idx]
            xs = (idx % fw).float() * self.stride
            ys = torch.div(idx, fw, rounding_mode="floor").float() * self.stride
            deltas = box_regression[i].flatten(1)[:, idx].t().exp() * self.stride
            boxes = torch.stack([xs - deltas[:, 0], ys - deltas[:, 1], xs + deltas[:, 2], ys + deltas[:, 3]], dim=1)
            masks = F.interpolate(mask_logits[i:i + 1], size=image_size, mode="bilinear", align_corners=False)
            masks = masks.sigmoid().repeat(self.detections_per_img, 1, 1, 1)
            result.append({"boxes": boxes, "labels": labels, "scores": scores, "masks": masks})
        return result


class MaskRCNNModel(torch.nn.Module):
    def __init__(self):
        super(MaskRCNNModel, self).__init__()
        self.model = TinyMaskRCNN(num_classes=7)

    def forward(self, input):
        outputs = self.model.forward(input)
        boxes = []
        labels = []
        scores = []
        masks = []
        for result in outputs:
            box, label, score, mask = result.values()
            boxes.append(box)
            labels.append(label)
            scores.append(score)
            masks.append(mask)
        return boxes, labels, scores, masks


def make_model():
    return MaskRCNNModel().eval()


def example_inputs():
    return (torch.rand(1, 3, 64, 64),)


def other_inputs():
    return [(torch.rand(2, 3, 64, 64),), (torch.rand(3, 3, 64, 64),)]


def probe_inputs():
    return other_inputs()
