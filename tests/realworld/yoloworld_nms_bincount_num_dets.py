"""YOLO-World's onnxruntime NMS post-processing (`deploy/easydeploy/nms/ort_nms.py`) sorts the NonMaxSuppression
indices by image and counts detections per image with `torch.bincount(batch_inds, minlength=batch_size)`;
"Exporting the operator 'aten::bincount' to ONNX opset version 12 is not supported" (also with --opset 11).

Source: https://github.com/AILab-CVC/YOLO-World/issues/536
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"scores": {0: "batch", 2: "num_boxes"}, "nms_index": {0: "num_selected"}}
BLIND = "operators-2"


def sort_nms_index(nms_index, scores, batch_size):
    """
    first sort the nms_index by batch, and then count the number of detections for each image: num_dets
    """
    # first sort by batch index to make sure that the same batch index is together
    device = nms_index.device
    nms_index_indices = torch.argsort(nms_index[:, 0], dim=0).to(device)
    nms_index = nms_index[nms_index_indices]

    scores = scores[nms_index[:, 0], nms_index[:, 1], nms_index[:, 2]]
    batch_inds = nms_index[:, 0]

    # Get the number of detections for each image
    num_dets = torch.bincount(batch_inds,minlength=batch_size).to(device)
    # Calculate the sum from front to back
    cumulative_sum = torch.cumsum(num_dets, dim=0).to(device)
    return nms_index, num_dets, cumulative_sum, scores


class SelectNmsIndex(nn.Module):
    def forward(self, scores, nms_index):
        batch_size, _, _ = scores.shape
        nms_index, num_dets, cumulative_sum, batched_scores = sort_nms_index(nms_index, scores, batch_size)
        return num_dets, cumulative_sum, batched_scores


def make_model():
    return SelectNmsIndex()


def _inputs(batch, classes, boxes, selected):
    scores = torch.rand(batch, classes, boxes)
    nms_index = torch.stack([
        torch.randint(0, batch, (selected,)),
        torch.randint(0, classes, (selected,)),
        torch.randint(0, boxes, (selected,)),
    ], dim=1)
    return (scores, nms_index)


def example_inputs():
    return _inputs(2, 4, 20, 7)


def other_inputs():
    return [_inputs(3, 4, 31, 12), _inputs(1, 4, 9, 3)]


def probe_inputs():
    return other_inputs()
