"""detectron2's Caffe2-export `InstancesList.set` asserts `len(self) == data_len` when the mask head adds
`pred_masks` to the detections; under torch.export `len(self)` is "the number of bounding boxes detected in the image
and thus is an unbounded SymInt", and the assertion breaks the export (the fix adds `torch._check` before it).
The per-image detection step (C2 BoxWithNMSLimit upstream) is a plain-torch thresholding stand-in.

Source: https://github.com/facebookresearch/detectron2/pull/5334
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "tensor_data"
DYNAMIC = {"box_features": {0: "batch", 1: "rois"}, "proposals": {0: "batch", 1: "rois"}}
BLIND = "domains-33"


class InstancesList:
    def __init__(self, im_info, indices, extra_fields=None):
        # [N, 3] -> (H, W, Scale)
        self.im_info = im_info
        # [N,] -> indice of batch to which the instance belongs
        self.indices = indices
        # [N, ...]
        self.batch_extra_fields = extra_fields or {}

        self.image_size = self.im_info

    def set(self, name, value):
        if isinstance(value, torch.Tensor):
            data_len = value.shape[0]
        else:
            data_len = len(value)
        if len(self.batch_extra_fields):
            assert (
                len(self) == data_len
            ), "Adding a field of length {} to a Instances of length {}".format(data_len, len(self))
        self.batch_extra_fields[name] = value

    def __getattr__(self, name):
        if name not in self.batch_extra_fields:
            raise AttributeError("Cannot find field '{}' in the given Instances!".format(name))
        return self.batch_extra_fields[name]

    def __len__(self):
        return len(self.indices)


class MaskRCNNInference(nn.Module):
    def __init__(self, in_dim=32, num_classes=4, score_thresh=0.3, mask_size=7):
        super().__init__()
        self.test_score_thresh = score_thresh
        self.mask_size = mask_size
        self.cls_score = nn.Linear(in_dim, num_classes + 1)
        self.bbox_pred = nn.Linear(in_dim, 4)
        self.mask_head = nn.Linear(in_dim, mask_size * mask_size)

    def forward(self, box_features, proposals):
        n, r = proposals.shape[:2]
        class_prob = F.softmax(self.cls_score(box_features), -1)
        scores, classes = class_prob[..., :-1].max(-1)
        keep = scores > self.test_score_thresh
        roi_batch_ids = torch.repeat_interleave(torch.arange(n), keep.sum(1))
        im_info = proposals.new_tensor([[800.0, 800.0, 1.0]]).expand(n, 3)

        results = InstancesList(
            im_info=im_info,
            indices=roi_batch_ids,
            extra_fields={
                "pred_boxes": (proposals + self.bbox_pred(box_features))[keep],
                "scores": scores[keep],
                "pred_classes": classes[keep],
            },
        )
        mask_probs = self.mask_head(box_features[keep]).sigmoid().view(-1, 1, self.mask_size, self.mask_size)
        results.set("pred_masks", mask_probs)
        return (results.indices, results.pred_boxes, results.scores, results.pred_classes, results.pred_masks)


def make_model():
    return MaskRCNNInference().eval()


def example_inputs():
    return (torch.randn(2, 50, 32) * 3, torch.rand(2, 50, 4) * 100)


def other_inputs():
    return [(torch.randn(3, 70, 32) * 3, torch.rand(3, 70, 4) * 100),
            (torch.randn(1, 30, 32) * 3, torch.rand(1, 30, 4) * 100)]


def probe_inputs():
    return other_inputs()
