"""torchvision detection postprocess (batched NMS coordinate trick): `if boxes.numel() == 0: return ...`
then `max_coordinate = boxes.max()`; the exported MaskRCNN fails in onnxruntime on an image with no
detections ("ReduceMax ... Can't reduce on dim with value of 0 ... input_shape:{0,4}").

Source: https://github.com/pytorch/vision/issues/2251
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"boxes": {0: "n"}, "scores": {0: "n"}, "labels": {0: "n"}}
BLIND = "domains-1"


def _batched_nms_coordinate_trick(boxes, scores, idxs):
    # strategy: in order to perform NMS independently per class,
    # we add an offset to all the boxes. The offset is dependent
    # only on the class idx, and is large enough so that boxes
    # from different classes do not overlap
    if boxes.numel() == 0:
        return boxes.new_zeros((0, 4)), scores.new_zeros((0,))
    max_coordinate = boxes.max()
    offsets = idxs.to(boxes) * (max_coordinate + torch.tensor(1).to(boxes))
    boxes_for_nms = boxes + offsets[:, None]
    return boxes_for_nms, scores


class RoIHeadsPostprocess(nn.Module):
    def __init__(self, score_thresh=0.05):
        super().__init__()
        self.score_thresh = score_thresh

    def forward(self, boxes, scores, labels):
        # remove low scoring boxes
        inds = torch.where(scores > self.score_thresh)[0]
        boxes, scores, labels = boxes[inds], scores[inds], labels[inds]
        return _batched_nms_coordinate_trick(boxes, scores, labels)


def make_model():
    return RoIHeadsPostprocess()


def example_inputs():
    return (torch.rand(8, 4) * 100, torch.rand(8), torch.randint(0, 5, (8,)))


def other_inputs():
    return [(torch.rand(12, 4) * 100, torch.rand(12), torch.randint(0, 5, (12,))),
            (torch.rand(5, 4) * 100, torch.rand(5) * 0.01, torch.randint(0, 5, (5,)))]


def probe_inputs():
    return other_inputs()
