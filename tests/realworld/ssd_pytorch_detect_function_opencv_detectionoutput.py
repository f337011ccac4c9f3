"""amdegroot/ssd.pytorch SSD with the "ONNX export compatible with OpenCV" patch: the test/export head calls
`Detect.apply(...)`, an autograd Function whose `symbolic` emits a Caffe/OpenCV `DetectionOutput` node while
its `forward` decodes boxes and runs the Python greedy NMS per image and class (`for i in range(num)`,
`if scores.size(0) == 0: continue`, `while idx.numel() > 0`); users running the export script get
TracerWarnings on those lines and an ONNX file other runtimes cannot load.

Source: https://github.com/amdegroot/ssd.pytorch/pull/462
"""
import torch
import torch.nn as nn
from torch.autograd import Function

CLASS = "autograd-function"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "domains-31"

voc = {'variance': [0.1, 0.2]}


def decode(loc, priors, variances):
    boxes = torch.cat((
        priors[:, :2] + loc[:, :2] * variances[0] * priors[:, 2:],
        priors[:, 2:] * torch.exp(loc[:, 2:] * variances[1])), 1)
    boxes[:, :2] -= boxes[:, 2:] / 2
    boxes[:, 2:] += boxes[:, :2]
    return boxes


def nms(boxes, scores, overlap=0.5, top_k=200):
    keep = scores.new(scores.size(0)).zero_().long()
    if boxes.numel() == 0:
        return keep
    x1, y1, x2, y2 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    area = torch.mul(x2 - x1, y2 - y1)
    v, idx = scores.sort(0)  # sort in ascending order
    idx = idx[-top_k:]  # indices of the top-k largest vals
    count = 0
    while idx.numel() > 0:
        i = idx[-1]  # index of current largest val
        keep[count] = i
        count += 1
        if idx.size(0) == 1:
            break
        idx = idx[:-1]  # remove kept element from view
        xx1 = torch.clamp(torch.index_select(x1, 0, idx), min=x1[i])
        yy1 = torch.clamp(torch.index_select(y1, 0, idx), min=y1[i])
        xx2 = torch.clamp(torch.index_select(x2, 0, idx), max=x2[i])
        yy2 = torch.clamp(torch.index_select(y2, 0, idx), max=y2[i])
        w = torch.clamp(xx2 - xx1, min=0.0)
        h = torch.clamp(yy2 - yy1, min=0.0)
        inter = w * h
        rem_areas = torch.index_select(area, 0, idx)
        union = (rem_areas - inter) + area[i]
        IoU = inter / union
        idx = idx[IoU.le(overlap)]
    return keep, count


class Detect(Function):
    @staticmethod
    def symbolic(g, loc_data, conf_data, prior_data, num_classes, top_k, variance, conf_thresh, nms_thresh, phase):
        return g.op('DetectionOutput', loc_data, conf_data, prior_data,
                    num_classes_i=num_classes, top_k_i=top_k, keep_top_k_i=top_k,
                    confidence_threshold_f=conf_thresh, nms_threshold_f=nms_thresh,
                    share_location_i=1, variance_encoded_in_target_i=0,
                    code_type_s='CENTER_SIZE', background_label_id_i=0)

    def forward(self, loc_data, conf_data, prior_data, num_classes, top_k, variance, conf_thresh, nms_thresh, phase):
        loc_data = loc_data.view(loc_data.shape[0], -1, 4)
        if phase == 'export':
            prior_data = prior_data.view(-1, 4)
            # Ignore variance from priors data
            prior_data = prior_data[:prior_data.shape[0] // 2]
        num = loc_data.size(0)  # batch size
        num_priors = prior_data.size(0)
        output = torch.zeros(num, num_classes, top_k, 5)
        conf_preds = conf_data.view(num, num_priors, num_classes).transpose(2, 1)
        for i in range(num):
            decoded_boxes = decode(loc_data[i], prior_data, variance)
            conf_scores = conf_preds[i].clone()
            for cl in range(1, num_classes):
                c_mask = conf_scores[cl].gt(conf_thresh)
                scores = conf_scores[cl][c_mask]
                if scores.size(0) == 0:
                    continue
                l_mask = c_mask.unsqueeze(1).expand_as(decoded_boxes)
                boxes = decoded_boxes[l_mask].view(-1, 4)
                ids, count = nms(boxes, scores, nms_thresh, top_k)
                output[i, cl, :count] = torch.cat((scores[ids[:count]].unsqueeze(1), boxes[ids[:count]]), 1)
        flt = output.contiguous().view(num, -1, 5)
        _, idx = flt[:, :, 0].sort(1, descending=True)
        _, rank = idx.sort(1)
        flt[(rank < top_k).unsqueeze(-1).expand_as(flt)].fill_(0)
        return output


def prior_box_export(fmap=4, num_priors=2, variance=(0.1, 0.2)):
    mean = []
    for i in range(fmap):
        for j in range(fmap):
            cx, cy = (j + 0.5) / fmap, (i + 0.5) / fmap
            for k in range(num_priors):
                s = 0.2 * (k + 1)
                mean += [cx, cy, s, s]
    output = torch.Tensor(mean).view(-1, 4).clamp_(max=1, min=0)
    variance = torch.Tensor([variance[0], variance[0], variance[1], variance[1]]).repeat(output.shape[0]).view(-1, 4)
    return torch.cat([output, variance], 0).view(1, 2, -1)


class SSD(nn.Module):
    def __init__(self, phase='export', num_classes=3):
        super().__init__()
        self.phase = phase
        self.num_classes = num_classes
        self.cfg = voc
        self.priors = prior_box_export()
        self.features = nn.Sequential(nn.Conv2d(3, 16, 3, stride=4, padding=1), nn.ReLU(),
                                      nn.Conv2d(16, 16, 3, stride=2, padding=1), nn.ReLU())
        self.loc = nn.ModuleList([nn.Conv2d(16, 2 * 4, 3, padding=1)])
        self.conf = nn.ModuleList([nn.Conv2d(16, 2 * num_classes, 3, padding=1)])
        self.softmax = nn.Softmax(dim=-1)
        self.top_k = 10
        self.conf_thresh = 0.01
        self.nms_thresh = 0.45

    def forward(self, x):
        sources = [self.features(x)]
        loc, conf = [], []
        for (s, l, c) in zip(sources, self.loc, self.conf):
            loc.append(l(s).permute(0, 2, 3, 1).contiguous())
            conf.append(c(s).permute(0, 2, 3, 1).contiguous())
        loc = torch.cat([o.view(o.size(0), -1) for o in loc], 1)
        conf = torch.cat([o.view(o.size(0), -1) for o in conf], 1)
        output = Detect.apply(
            loc.view(loc.size(0), -1),
            self.softmax(conf.view(conf.size(0), -1, self.num_classes)).view(conf.size(0), -1),
            self.priors.type(type(x.data)),
            self.num_classes,
            self.top_k,
            self.cfg['variance'],
            self.conf_thresh,
            self.nms_thresh,
            self.phase
        )
        return output


def make_model():
    return SSD('export', 3)


def example_inputs():
    return (torch.randn(1, 3, 32, 32),)


def other_inputs():
    return [(torch.randn(3, 3, 32, 32),), (torch.randn(2, 3, 32, 32),)]


def probe_inputs():
    return other_inputs()
