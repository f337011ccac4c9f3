"""torchvision Mask R-CNN mask post-processing before the PR that enabled its ONNX export: `maskrcnn_inference`
selects each detection's class mask and then splits the batch back per image with
`boxes_per_image = [len(l) for l in labels]; mask_prob.split(boxes_per_image, dim=0)`; the per-image detection
counts come from score filtering, so the traced Split keeps the export-time counts (the PR notes the model can only
be exported "with a batch of 1 (until we support dynamic cases for split)" and bypasses the split when tracing).
RoIAlign and the box branch are replaced by per-location features; the score filtering mimics postprocess_detections.

Source: https://github.com/pytorch/vision/pull/1461
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "shape_math"
DYNAMIC = {"features": {2: "height", 3: "width"}}
BLIND = "domains-40"


def maskrcnn_inference(x, labels):
    # type: (Tensor, List[Tensor]) -> List[Tensor]
    mask_prob = x.sigmoid()

    # select masks coresponding to the predicted classes
    num_masks = x.shape[0]
    boxes_per_image = [len(l) for l in labels]
    labels = torch.cat(labels)
    index = torch.arange(num_masks, device=labels.device)
    mask_prob = mask_prob[index, labels][:, None]

    mask_prob = mask_prob.split(boxes_per_image, dim=0)

    return mask_prob


class MaskRCNNHeads(nn.Module):
    def __init__(self, in_channels=8, num_classes=4, mask_size=7, score_thresh=0.5):
        super().__init__()
        self.num_classes = num_classes
        self.mask_size = mask_size
        self.score_thresh = score_thresh
        self.box_predictor = nn.Conv2d(in_channels, num_classes, 1)
        self.mask_head = nn.Sequential(nn.Linear(in_channels, 32), nn.ReLU(),
                                       nn.Linear(32, num_classes * mask_size * mask_size))

    def postprocess_detections(self, class_logits, roi_features):
        pred_scores = class_logits.softmax(-1)
        all_scores, all_labels, all_feats = [], [], []
        for scores, feats in zip(pred_scores, roi_features):
            # remove predictions with the background label, keep the best class
            scores, labels = scores[:, 1:].max(dim=1)
            labels = labels + 1
            # remove low scoring boxes
            inds = torch.where(scores > self.score_thresh)[0]
            all_scores.append(scores[inds])
            all_labels.append(labels[inds])
            all_feats.append(feats[inds])
        return all_scores, all_labels, all_feats

    def forward(self, features):
        class_logits = self.box_predictor(features).flatten(2).transpose(1, 2)  # N x HW x K
        roi_features = features.flatten(2).transpose(1, 2)  # N x HW x C
        scores, labels, feats = self.postprocess_detections(class_logits, roi_features)
        mask_logits = self.mask_head(torch.cat(feats)).view(-1, self.num_classes, self.mask_size, self.mask_size)
        masks_probs = maskrcnn_inference(mask_logits, labels)
        return masks_probs[0], scores[0], labels[0]


def make_model():
    return MaskRCNNHeads().eval()


def example_inputs():
    return (torch.randn(1, 8, 6, 8) * 3,)


def other_inputs():
    return [(torch.randn(1, 8, 10, 7) * 3,), (torch.randn(1, 8, 4, 12) * 3,)]


def probe_inputs():
    return other_inputs()
