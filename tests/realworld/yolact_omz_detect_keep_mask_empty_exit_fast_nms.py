"""YOLACT (ResNet50-FPN) as packaged by Intel's Open Model Zoo: the model.yml patches yolact.py before ONNX
export, replacing `from layers import Detect` with a plain box decoder because the original postprocessing
(layers/functions/detection.py) "can not be converted to ONNX due to some limitations". The code before the patch
is Detect: a Python loop over the batch, a confidence mask `keep = (conf_scores > self.conf_thresh)` used to
select scores/boxes/masks, an early `if scores.size(1) == 0: return None`, then fast NMS with sorts, IoU
triu and boolean filtering.

Source: https://github.com/openvinotoolkit/open_model_zoo/blob/master/models/public/yolact-resnet50-fpn-pytorch/model.yml
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {2: "height", 3: "width"}}
BLIND = "domains-53"


class _Cfg:
    max_num_detections = 100


cfg = _Cfg()


def point_form(boxes):
    return torch.cat((boxes[:, :2] - boxes[:, 2:] / 2, boxes[:, :2] + boxes[:, 2:] / 2), 1)


def decode(loc, priors, use_yolo_regressors: bool = False):
    variances = [0.1, 0.2]
    boxes = torch.cat((
        priors[:, :2] + loc[:, :2] * variances[0] * priors[:, 2:],
        priors[:, 2:] * torch.exp(loc[:, 2:] * variances[1])), 1)
    boxes[:, :2] -= boxes[:, 2:] / 2
    boxes[:, 2:] += boxes[:, :2]
    return boxes


def intersect(box_a, box_b):
    n = box_a.size(0)
    A = box_a.size(1)
    B = box_b.size(1)
    max_xy = torch.min(box_a[:, :, 2:].unsqueeze(2).expand(n, A, B, 2),
                       box_b[:, :, 2:].unsqueeze(1).expand(n, A, B, 2))
    min_xy = torch.max(box_a[:, :, :2].unsqueeze(2).expand(n, A, B, 2),
                       box_b[:, :, :2].unsqueeze(1).expand(n, A, B, 2))
    inter = torch.clamp((max_xy - min_xy), min=0)
    return inter[:, :, :, 0] * inter[:, :, :, 1]


def jaccard(box_a, box_b, iscrowd: bool = False):
    use_batch = True
    if box_a.dim() == 2:
        use_batch = False
        box_a = box_a[None, ...]
        box_b = box_b[None, ...]

    inter = intersect(box_a, box_b)
    area_a = ((box_a[:, :, 2] - box_a[:, :, 0]) *
              (box_a[:, :, 3] - box_a[:, :, 1])).unsqueeze(2).expand_as(inter)  # [A,B]
    area_b = ((box_b[:, :, 2] - box_b[:, :, 0]) *
              (box_b[:, :, 3] - box_b[:, :, 1])).unsqueeze(1).expand_as(inter)  # [A,B]
    union = area_a + area_b - inter

    out = inter / area_a if iscrowd else inter / union
    return out if use_batch else out.squeeze(0)


class Detect(object):
    def __init__(self, num_classes, bkg_label, top_k, conf_thresh, nms_thresh):
        self.num_classes = num_classes
        self.background_label = bkg_label
        self.top_k = top_k
        self.nms_thresh = nms_thresh
        self.conf_thresh = conf_thresh
        self.use_cross_class_nms = False
        self.use_fast_nms = True

    def __call__(self, predictions, net):
        loc_data   = predictions['loc']
        conf_data  = predictions['conf']
        mask_data  = predictions['mask']
        prior_data = predictions['priors']

        proto_data = predictions['proto'] if 'proto' in predictions else None
        inst_data  = predictions['inst']  if 'inst'  in predictions else None

        out = []

        batch_size = loc_data.size(0)
        num_priors = prior_data.size(0)

        conf_preds = conf_data.view(batch_size, num_priors, self.num_classes).transpose(2, 1).contiguous()

        for batch_idx in range(batch_size):
            decoded_boxes = decode(loc_data[batch_idx], prior_data)
            result = self.detect(batch_idx, conf_preds, decoded_boxes, mask_data, inst_data)

            if result is not None and proto_data is not None:
                result['proto'] = proto_data[batch_idx]

            out.append({'detection': result, 'net': net})

        return out

    def detect(self, batch_idx, conf_preds, decoded_boxes, mask_data, inst_data):
        cur_scores = conf_preds[batch_idx, 1:, :]
        conf_scores, _ = torch.max(cur_scores, dim=0)

        keep = (conf_scores > self.conf_thresh)
        scores = cur_scores[:, keep]
        boxes = decoded_boxes[keep, :]
        masks = mask_data[batch_idx, keep, :]

        if scores.size(1) == 0:
            return None

        boxes, masks, classes, scores = self.fast_nms(boxes, masks, scores, self.nms_thresh, self.top_k)
        return {'box': boxes, 'mask': masks, 'class': classes, 'score': scores}

    def fast_nms(self, boxes, masks, scores, iou_threshold: float = 0.5, top_k: int = 200, second_threshold: bool = False):
        scores, idx = scores.sort(1, descending=True)

        idx = idx[:, :top_k].contiguous()
        scores = scores[:, :top_k]

        num_classes, num_dets = idx.size()

        boxes = boxes[idx.view(-1), :].view(num_classes, num_dets, 4)
        masks = masks[idx.view(-1), :].view(num_classes, num_dets, -1)

        iou = jaccard(boxes, boxes)
        iou.triu_(diagonal=1)
        iou_max, _ = iou.max(dim=1)

        keep = (iou_max <= iou_threshold)
        if second_threshold:
            keep *= (scores > self.conf_thresh)

        classes = torch.arange(num_classes, device=boxes.device)[:, None].expand_as(keep)
        classes = classes[keep]

        boxes = boxes[keep]
        masks = masks[keep]
        scores = scores[keep]

        scores, idx = scores.sort(0, descending=True)
        idx = idx[:cfg.max_num_detections]
        scores = scores[:cfg.max_num_detections]

        classes = classes[idx]
        boxes = boxes[idx]
        masks = masks[idx]

        return boxes, masks, classes, scores


class Yolact(nn.Module):
    """Trimmed: one FPN level with a prediction head; priors from the feature map size."""

    def __init__(self, num_classes=5, mask_dim=8):
        super().__init__()
        self.num_classes = num_classes
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, stride=4, padding=1), nn.ReLU(),
                                      nn.Conv2d(16, 32, 3, stride=4, padding=1), nn.ReLU())
        self.proto_net = nn.Conv2d(32, mask_dim, 3, padding=1)
        self.bbox_layer = nn.Conv2d(32, 4, 3, padding=1)
        self.conf_layer = nn.Conv2d(32, num_classes, 3, padding=1)
        self.mask_layer = nn.Conv2d(32, mask_dim, 3, padding=1)
        self.detect = Detect(num_classes, bkg_label=0, top_k=200, conf_thresh=0.05, nms_thresh=0.5)

    def make_priors(self, conv_h, conv_w):
        ys = (torch.arange(conv_h, dtype=torch.float32) + 0.5) / conv_h
        xs = (torch.arange(conv_w, dtype=torch.float32) + 0.5) / conv_w
        y, x = torch.meshgrid(ys, xs, indexing='ij')
        wh = torch.full_like(x, 0.1)
        return torch.stack([x, y, wh, wh], dim=-1).view(-1, 4)

    def forward(self, x):
        f = self.backbone(x)
        bs = f.size(0)
        proto_out = F.relu(self.proto_net(f)).permute(0, 2, 3, 1).contiguous()
        pred_outs = {
            'loc': self.bbox_layer(f).permute(0, 2, 3, 1).contiguous().view(bs, -1, 4),
            'conf': self.conf_layer(f).permute(0, 2, 3, 1).contiguous().view(bs, -1, self.num_classes),
            'mask': torch.tanh(self.mask_layer(f).permute(0, 2, 3, 1).contiguous().view(bs, -1, self.mask_layer.out_channels)),
            'priors': self.make_priors(f.size(2), f.size(3)),
            'proto': proto_out,
        }
        pred_outs['conf'] = F.softmax(pred_outs['conf'], -1)
        dets = self.detect(pred_outs, self)[0]['detection']
        return dets['box'], dets['mask'], dets['class'], dets['score']


def make_model():
    return Yolact().eval()


def example_inputs():
    return (torch.randn(1, 3, 160, 192),)


def other_inputs():
    return [(torch.randn(1, 3, 224, 128),), (torch.randn(1, 3, 96, 256),)]


def probe_inputs():
    return other_inputs()
