"""detectron2 `mask_rcnn_inference`: `indices = torch.arange(num_masks)`, then
`pred_mask_logits[indices, class_pred][:, None].sigmoid()` (exported as an ATen "index" fallback node).

Source: https://github.com/pytorch/pytorch/issues/43045
"""
import torch
from torch import nn

CLASS = "indexing"
FAMILY = "indexing"
DYNAMIC = {"pred_mask_logits": {0: "masks"}, "class_pred": {0: "masks"}}


class MaskHead(nn.Module):
    def forward(self, pred_mask_logits, class_pred):
        num_masks, num_classes, hmask, wmask = pred_mask_logits.shape
        indices = torch.arange(num_masks, device=class_pred.device)
        return pred_mask_logits[indices, class_pred][:, None].sigmoid()


def make_model():
    return MaskHead()


def example_inputs():
    return (torch.randn(3, 5, 4, 4), torch.tensor([0, 4, 2]))


def other_inputs():
    return [(torch.randn(6, 5, 4, 4), torch.tensor([1, 1, 3, 0, 4, 2])), (torch.randn(3, 5, 4, 4), torch.tensor([4, 4, 4]))]


def probe_inputs():
    return other_inputs()
