"""detectron2 PanopticFPN inference merges instance and semantic outputs with
`combine_semantic_and_instance_outputs`: a Python loop over the score-sorted instances with `.item()` on scores and
mask areas (early `break`/`continue`), then `torch.unique(semantic_results).cpu().tolist()` to add stuff segments;
the report is that PanopticFPN cannot be exported to ONNX (the fix exports it with `do_postprocess=False`, i.e.
without this step). The `segments_info` list of dicts is left out; the panoptic id map is returned.

Source: https://github.com/facebookresearch/detectron2/issues/4354
"""
from types import SimpleNamespace

import torch
from torch import nn

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {"scores": {0: "num_instances"}, "mask_logits": {0: "num_instances", 1: "height", 2: "width"},
           "pred_classes": {0: "num_instances"}, "sem_seg_logits": {1: "height", 2: "width"}}
BLIND = "domains-13"


def combine_semantic_and_instance_outputs(
    instance_results,
    semantic_results,
    overlap_threshold,
    stuff_area_thresh,
    instances_score_thresh,
):
    panoptic_seg = torch.zeros_like(semantic_results, dtype=torch.int32)

    # sort instance outputs by scores
    sorted_inds = torch.argsort(-instance_results.scores)

    current_segment_id = 0
    segments_info = []

    instance_masks = instance_results.pred_masks.to(dtype=torch.bool, device=panoptic_seg.device)

    # Add instances one-by-one, check for overlaps with existing ones
    for inst_id in sorted_inds:
        score = instance_results.scores[inst_id].item()
        if score < instances_score_thresh:
            break
        mask = instance_masks[inst_id]  # H,W
        mask_area = mask.sum().item()

        if mask_area == 0:
            continue

        intersect = (mask > 0) & (panoptic_seg > 0)
        intersect_area = intersect.sum().item()

        if intersect_area * 1.0 / mask_area > overlap_threshold:
            continue

        if intersect_area > 0:
            mask = mask & (panoptic_seg == 0)

        current_segment_id += 1
        panoptic_seg[mask] = current_segment_id
        segments_info.append(
            {
                "id": current_segment_id,
                "isthing": True,
                "score": score,
                "category_id": instance_results.pred_classes[inst_id].item(),
                "instance_id": inst_id.item(),
            }
        )

    # Add semantic results to remaining empty areas
    semantic_labels = torch.unique(semantic_results).cpu().tolist()
    for semantic_label in semantic_labels:
        if semantic_label == 0:  # 0 is a special "thing" class
            continue
        mask = (semantic_results == semantic_label) & (panoptic_seg == 0)
        mask_area = mask.sum().item()
        if mask_area < stuff_area_thresh:
            continue

        current_segment_id += 1
        panoptic_seg[mask] = current_segment_id
        segments_info.append(
            {
                "id": current_segment_id,
                "isthing": False,
                "category_id": semantic_label,
                "area": mask_area,
            }
        )

    return panoptic_seg, segments_info


class PanopticFPNPostprocess(nn.Module):
    """PanopticFPN.forward (inference, do_postprocess=True) after the heads: sem_seg argmax + combine."""

    def __init__(self):
        super().__init__()
        self.combine_overlap_thresh = 0.5
        self.combine_stuff_area_thresh = 16
        self.combine_instances_score_thresh = 0.5

    def forward(self, scores, mask_logits, pred_classes, sem_seg_logits):
        instance_r = SimpleNamespace(scores=scores, pred_masks=mask_logits > 0, pred_classes=pred_classes)
        sem_seg_r = sem_seg_logits.argmax(dim=0)
        panoptic_r, _ = combine_semantic_and_instance_outputs(
            instance_r,
            sem_seg_r,
            self.combine_overlap_thresh,
            self.combine_stuff_area_thresh,
            self.combine_instances_score_thresh,
        )
        return panoptic_r


def make_model():
    return PanopticFPNPostprocess().eval()


def _inputs(n, h, w):
    return (torch.rand(n), torch.randn(n, h, w) - 0.8, torch.randint(0, 5, (n,)), torch.randn(6, h, w))


def example_inputs():
    return _inputs(5, 24, 32)


def other_inputs():
    return [_inputs(8, 32, 20), _inputs(3, 16, 16)]


def probe_inputs():
    return other_inputs()
