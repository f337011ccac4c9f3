"""Detic (open-vocabulary detector, detectron2 ROI heads with a CLIP zero-shot classifier) exported to ONNX:
`predict_boxes` / `predict_probs` split the per-proposal outputs with `num_inst_per_image = [len(p) for p in proposals]`;
the exported model runs on the export image only, other images fail in onnxruntime with
"Cannot split using values in 'split' attribute. Axis=0 Input shape={240,7} ... Sum of sizes in 'split' ... was 256".
(One image, one cascade stage; detectron2's Instances/Boxes/Box2BoxTransform reduced to the lines used.)

Source: https://github.com/facebookresearch/Detic/issues/119
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"box_features": {0: "num_proposals"}, "proposal_boxes": {0: "num_proposals"},
           "objectness_logits": {0: "num_proposals"}}
BLIND = "domains-51"

_DEFAULT_SCALE_CLAMP = math.log(1000.0 / 16)


class Boxes:
    def __init__(self, tensor):
        self.tensor = tensor

    def __len__(self):
        return self.tensor.shape[0]


class Instances:
    def __init__(self, image_size, **kwargs):
        self._image_size = image_size
        self._fields = dict(kwargs)

    @property
    def image_size(self):
        return self._image_size

    def __getattr__(self, name):
        if name == "_fields" or name not in self._fields:
            raise AttributeError(name)
        return self._fields[name]

    def get(self, name):
        return self._fields[name]

    def __len__(self):
        for v in self._fields.values():
            return v.__len__()
        raise NotImplementedError("Empty Instances does not support __len__!")


class Box2BoxTransform:
    def __init__(self, weights, scale_clamp=_DEFAULT_SCALE_CLAMP):
        self.weights = weights
        self.scale_clamp = scale_clamp

    def apply_deltas(self, deltas, boxes):
        deltas = deltas.float()
        boxes = boxes.to(deltas.dtype)
        widths = boxes[:, 2] - boxes[:, 0]
        heights = boxes[:, 3] - boxes[:, 1]
        ctr_x = boxes[:, 0] + 0.5 * widths
        ctr_y = boxes[:, 1] + 0.5 * heights
        wx, wy, ww, wh = self.weights
        dx = deltas[:, 0::4] / wx
        dy = deltas[:, 1::4] / wy
        dw = deltas[:, 2::4] / ww
        dh = deltas[:, 3::4] / wh
        dw = torch.clamp(dw, max=self.scale_clamp)
        dh = torch.clamp(dh, max=self.scale_clamp)
        pred_ctr_x = dx * widths[:, None] + ctr_x[:, None]
        pred_ctr_y = dy * heights[:, None] + ctr_y[:, None]
        pred_w = torch.exp(dw) * widths[:, None]
        pred_h = torch.exp(dh) * heights[:, None]
        x1 = pred_ctr_x - 0.5 * pred_w
        y1 = pred_ctr_y - 0.5 * pred_h
        x2 = pred_ctr_x + 0.5 * pred_w
        y2 = pred_ctr_y + 0.5 * pred_h
        pred_boxes = torch.stack((x1, y1, x2, y2), dim=-1)
        return pred_boxes.reshape(deltas.shape)


class ZeroShotClassifier(nn.Module):
    def __init__(self, input_size, num_classes, zs_weight_dim=512, norm_weight=True, norm_temperature=50.0):
        super().__init__()
        self.norm_weight = norm_weight
        self.norm_temperature = norm_temperature
        self.linear = nn.Linear(input_size, zs_weight_dim)
        zs_weight = torch.randn((zs_weight_dim, num_classes))
        zs_weight = torch.cat([zs_weight, zs_weight.new_zeros((zs_weight_dim, 1))], dim=1)  # D x (C + 1)
        if self.norm_weight:
            zs_weight = F.normalize(zs_weight, p=2, dim=0)
        self.register_buffer("zs_weight", zs_weight)

    def forward(self, x):
        x = self.linear(x)
        if self.norm_weight:
            x = self.norm_temperature * F.normalize(x, p=2, dim=1)
        return torch.mm(x, self.zs_weight)


class DeticFastRCNNOutputLayers(nn.Module):
    def __init__(self, input_size=256, num_classes=6, use_sigmoid_ce=True, mult_proposal_score=True):
        super().__init__()
        self.use_sigmoid_ce = use_sigmoid_ce
        self.mult_proposal_score = mult_proposal_score
        self.box2box_transform = Box2BoxTransform(weights=(10.0, 10.0, 5.0, 5.0))
        self.cls_score = ZeroShotClassifier(input_size, num_classes)
        self.bbox_pred = nn.Sequential(nn.Linear(input_size, input_size), nn.ReLU(inplace=True),
                                       nn.Linear(input_size, 4))

    def forward(self, x):
        return self.cls_score(x), self.bbox_pred(x)

    def predict_boxes(self, predictions, proposals):
        if not len(proposals):
            return []
        _, proposal_deltas = predictions
        num_prop_per_image = [len(p) for p in proposals]
        proposal_boxes = torch.cat([p.proposal_boxes.tensor for p in proposals], dim=0)
        predict_boxes = self.box2box_transform.apply_deltas(proposal_deltas, proposal_boxes)
        return predict_boxes.split(num_prop_per_image)

    def predict_probs(self, predictions, proposals):
        scores = predictions[0]
        num_inst_per_image = [len(p) for p in proposals]
        if self.use_sigmoid_ce:
            probs = scores.sigmoid()
        else:
            probs = F.softmax(scores, dim=-1)
        return probs.split(num_inst_per_image, dim=0)

    def inference(self, predictions, proposals):
        predictions = (predictions[0], predictions[1])
        boxes = self.predict_boxes(predictions, proposals)
        scores = self.predict_probs(predictions, proposals)
        if self.mult_proposal_score:
            proposal_scores = [p.get("objectness_logits") for p in proposals]
            scores = [(s * ps[:, None]) ** 0.5 for s, ps in zip(scores, proposal_scores)]
        return boxes, scores


class DeticBoxHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.box_predictor = DeticFastRCNNOutputLayers()

    def forward(self, box_features, proposal_boxes, objectness_logits):
        proposals = [Instances((480, 640), proposal_boxes=Boxes(proposal_boxes),
                               objectness_logits=objectness_logits)]
        predictions = self.box_predictor(box_features)
        boxes, scores = self.box_predictor.inference(predictions, proposals)
        return boxes[0], scores[0]


def make_model():
    return DeticBoxHead().eval()


def _inputs(n):
    xy = torch.rand(n, 2) * 400
    wh = torch.rand(n, 2) * 200 + 8
    return (torch.randn(n, 256), torch.cat([xy, xy + wh], dim=1), torch.rand(n))


def example_inputs():
    return _inputs(256)


def other_inputs():
    return [_inputs(240), _inputs(97)]


def probe_inputs():
    return other_inputs()
