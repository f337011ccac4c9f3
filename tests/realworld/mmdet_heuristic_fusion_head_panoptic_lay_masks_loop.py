"""Panoptic FPN fusion (mmdet `HeuristicFusionHead._predict_single` / `_lay_masks`): instance masks are laid
onto an id map in a Python loop over the detected instances with data-dependent skips (`if area == 0:
continue`, `if (intersect / (area + 1e-5)) > overlap_thr: continue`), a list of kept labels stacked at the
end, then stuff regions are filtered with `torch.unique(..., return_counts=True)` and boolean-mask writes.
mmdeploy's panoptic-segmentation support could not export this part and stops before it ("do not export
panoptic_fusion_head"), returning raw boxes/masks/semseg instead.

Source: https://github.com/open-mmlab/mmdeploy/pull/2347
"""
import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"bboxes": {0: "num_inst"}, "scores": {0: "num_inst"}, "labels": {0: "num_inst"},
           "masks": {0: "num_inst", 1: "height", 2: "width"}, "seg_preds": {1: "height", 2: "width"}}
BLIND = "domains-42"

INSTANCE_OFFSET = 1000


class InstanceData:
    """The few InstanceData fields the fusion head reads."""

    def __init__(self, bboxes, scores, labels, masks):
        self.bboxes, self.scores, self.labels, self.masks = bboxes, scores, labels, masks

    def __len__(self):
        return self.bboxes.shape[0]


class TestCfg(dict):
    __getattr__ = dict.__getitem__


class HeuristicFusionHead(nn.Module):
    """Fusion Head with Heuristic method."""

    def __init__(self, num_things_classes=8, num_stuff_classes=5, test_cfg=None):
        super().__init__()
        self.num_things_classes = num_things_classes
        self.num_stuff_classes = num_stuff_classes
        self.num_classes = num_things_classes + num_stuff_classes
        self.test_cfg = TestCfg(test_cfg)

    def _lay_masks(self, mask_results, overlap_thr=0.5):
        bboxes = mask_results.bboxes
        scores = mask_results.scores
        labels = mask_results.labels
        masks = mask_results.masks

        num_insts = bboxes.shape[0]
        id_map = torch.zeros(
            masks.shape[-2:], device=bboxes.device, dtype=torch.long)
        if num_insts == 0:
            return id_map, labels

        # Sort by score to use heuristic fusion
        order = torch.argsort(-scores)
        bboxes = bboxes[order]
        labels = labels[order]
        segm_masks = masks[order]

        instance_id = 1
        left_labels = []
        for idx in range(bboxes.shape[0]):
            _cls = labels[idx]
            _mask = segm_masks[idx]
            instance_id_map = torch.ones_like(
                _mask, dtype=torch.long) * instance_id
            area = _mask.sum()
            if area == 0:
                continue

            pasted = id_map > 0
            intersect = (_mask * pasted).sum()
            if (intersect / (area + 1e-5)) > overlap_thr:
                continue

            _part = _mask * (~pasted)
            id_map = torch.where(_part, instance_id_map, id_map)
            left_labels.append(_cls)
            instance_id += 1

        if len(left_labels) > 0:
            instance_labels = torch.stack(left_labels)
        else:
            instance_labels = bboxes.new_zeros((0, ), dtype=torch.long)
        assert instance_id == (len(instance_labels) + 1)
        return id_map, instance_labels

    def _predict_single(self, mask_results, seg_preds, **kwargs):
        id_map, labels = self._lay_masks(mask_results,
                                         self.test_cfg.mask_overlap)

        seg_results = seg_preds.argmax(dim=0)
        seg_results = seg_results + self.num_things_classes

        pan_results = seg_results
        instance_id = 1
        for idx in range(len(mask_results)):
            _mask = id_map == (idx + 1)
            if _mask.sum() == 0:
                continue
            _cls = labels[idx]
            # simply trust detection
            segment_id = _cls + instance_id * INSTANCE_OFFSET
            pan_results[_mask] = segment_id
            instance_id += 1

        ids, counts = torch.unique(
            pan_results % INSTANCE_OFFSET, return_counts=True)
        stuff_ids = ids[ids >= self.num_things_classes]
        stuff_counts = counts[ids >= self.num_things_classes]
        ignore_stuff_ids = stuff_ids[
            stuff_counts < self.test_cfg.stuff_area_limit]

        assert pan_results.ndim == 2
        pan_results[(pan_results.unsqueeze(2) == ignore_stuff_ids.reshape(
            1, 1, -1)).any(dim=2)] = self.num_classes

        return pan_results[None].int()

    def forward(self, bboxes, scores, labels, masks, seg_preds):
        mask_results = InstanceData(bboxes, scores, labels, masks)
        return self._predict_single(mask_results, seg_preds)


def make_model():
    return HeuristicFusionHead(test_cfg=dict(mask_overlap=0.5, stuff_area_limit=64)).eval()


def _inputs(n, h, w):
    xy = torch.rand(n, 2) * torch.tensor([w * 0.7, h * 0.7])
    wh = torch.rand(n, 2) * torch.tensor([w * 0.5, h * 0.5]) + 4
    bboxes = torch.cat([xy, xy + wh], dim=1)
    ys = torch.arange(h).view(1, h, 1)
    xs = torch.arange(w).view(1, 1, w)
    masks = ((xs >= bboxes[:, 0].view(-1, 1, 1)) & (xs < bboxes[:, 2].view(-1, 1, 1)) &
             (ys >= bboxes[:, 1].view(-1, 1, 1)) & (ys < bboxes[:, 3].view(-1, 1, 1)))
    masks &= torch.rand(n, h, w) > 0.2
    return (bboxes, torch.rand(n), torch.randint(0, 8, (n,)), masks, torch.randn(6, h, w))


def example_inputs():
    return _inputs(5, 40, 48)


def other_inputs():
    return [_inputs(8, 36, 60), _inputs(3, 52, 32)]


def probe_inputs():
    return other_inputs()
