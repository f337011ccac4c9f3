"""Ultralytics NMSModel (embedded NMS for `export(format="onnx", nms=True, dynamic=True)`): the output length is
`self.args.max_det = min(pred.shape[1], self.args.max_det)` and the boxes are normalized with
`torch.tensor(x.shape[2:]).max()`, both taken from the traced export size; the PR reports that at any image size other
than the export one the graph returns the raw anchor count instead of `max_det` rows (NMS sizing and coordinate
normalization "bound to the traced export shape").

Source: https://github.com/ultralytics/ultralytics/pull/25874
"""
from types import SimpleNamespace

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {2: "height", 3: "width"}}
BLIND = "domains-13"


def box_iou(box1, box2, eps=1e-7):
    (a1, a2), (b1, b2) = box1.float().unsqueeze(1).chunk(2, 2), box2.float().unsqueeze(0).chunk(2, 2)
    inter = (torch.min(a2, b2) - torch.max(a1, b1)).clamp_(0).prod(2)
    return inter / ((a2 - a1).prod(2) + (b2 - b1).prod(2) - inter + eps)


class TorchNMS:
    """ultralytics/utils/nms.py; stands in for torchvision.ops.nms (no torchvision in this case file)."""

    @staticmethod
    def fast_nms(boxes, scores, iou_threshold, use_triu=True, iou_func=box_iou, exit_early=True):
        if boxes.numel() == 0 and exit_early:
            return torch.empty((0,), dtype=torch.int64, device=boxes.device)
        sorted_idx = torch.argsort(scores, descending=True)
        boxes = boxes[sorted_idx]
        ious = iou_func(boxes, boxes)
        ious = ious.triu_(diagonal=1)
        pick = torch.nonzero((ious >= iou_threshold).sum(0) <= 0).squeeze_(-1)
        return sorted_idx[pick]


class TinyDetect(nn.Module):
    """Stand-in for the YOLO detection model: returns (B, 4 + nc, anchors) with xyxy boxes in pixels."""

    def __init__(self, nc=3):
        super().__init__()
        self.names = {i: f"class{i}" for i in range(nc)}
        self.task = "detect"
        self.conv = nn.Conv2d(3, 4 + nc, 8, stride=8)

    def forward(self, x):
        y = self.conv(x).flatten(2)
        xy = y[:, 0:2].sigmoid() * x.shape[-1] * 0.8
        wh = y[:, 2:4].sigmoid() * 16 + 2
        return torch.cat([xy, xy + wh, y[:, 4:].sigmoid()], 1)


class NMSModel(torch.nn.Module):
    """Model wrapper with embedded NMS for Detect (ultralytics/engine/exporter.py, detect path)."""

    def __init__(self, model, args):
        super().__init__()
        self.model = model
        self.args = args
        self.obb = model.task == "obb"
        self.is_tf = self.args.format in frozenset({"saved_model", "tflite", "tfjs"})

    def forward(self, x):
        nms = TorchNMS.fast_nms
        preds = self.model(x)
        pred = preds[0] if isinstance(preds, tuple) else preds
        kwargs = dict(device=pred.device, dtype=pred.dtype)
        bs = pred.shape[0]
        pred = pred.transpose(-1, -2)  # shape(1,84,6300) to shape(1,6300,84)
        extra_shape = pred.shape[-1] - (4 + len(self.model.names))  # extras from Segment, OBB, Pose
        if self.args.dynamic and self.args.batch > 1:  # batch size needs to always be same due to loop unroll
            pad = torch.zeros(torch.max(torch.tensor(self.args.batch - bs), torch.tensor(0)), *pred.shape[1:], **kwargs)
            pred = torch.cat((pred, pad))
        boxes, scores, extras = pred.split([4, len(self.model.names), extra_shape], dim=2)
        scores, classes = scores.max(dim=-1)
        self.args.max_det = min(pred.shape[1], self.args.max_det)  # in case num_anchors < max_det
        # (N, max_det, 4 coords + 1 class score + 1 class label + extra_shape).
        out = torch.zeros(pred.shape[0], self.args.max_det, boxes.shape[-1] + 2 + extra_shape, **kwargs)
        for i in range(bs):
            box, cls, score, extra = boxes[i], classes[i], scores[i], extras[i]
            mask = score > self.args.conf
            box, score, cls, extra = box[mask], score[mask], cls[mask], extra[mask]
            nmsbox = box.clone()
            multiplier = 8 if self.obb else 1 / max(len(self.model.names), 1)
            nmsbox = multiplier * (nmsbox / torch.tensor(x.shape[2:], **kwargs).max())
            if not self.args.agnostic_nms:  # class-wise NMS
                end = 2 if self.obb else 4
                # fully explicit expansion otherwise reshape error
                cls_offset = cls.view(cls.shape[0], 1).expand(cls.shape[0], end)
                offbox = nmsbox[:, :end] + cls_offset * multiplier
                nmsbox = torch.cat((offbox, nmsbox[:, end:]), dim=-1)
            keep = nms(nmsbox, score, self.args.iou)[: self.args.max_det]
            dets = torch.cat(
                [box[keep], score[keep].view(-1, 1), cls[keep].view(-1, 1).to(out.dtype), extra[keep]], dim=-1
            )
            # Zero-pad to max_det size to avoid reshape error
            pad = (0, 0, 0, self.args.max_det - dets.shape[0])
            out[i] = torch.nn.functional.pad(dets, pad)
        return out[:bs]


def make_model():
    args = SimpleNamespace(format="onnx", dynamic=True, batch=1, max_det=300, conf=0.5, iou=0.7,
                           agnostic_nms=False, opset=None)
    return NMSModel(TinyDetect(), args).eval()


def example_inputs():
    return (torch.randn(1, 3, 96, 96),)  # exported at a small imgsz: 144 anchors < max_det


def other_inputs():
    return [(torch.randn(1, 3, 160, 224),), (torch.randn(1, 3, 256, 192),)]


def probe_inputs():
    return other_inputs()
