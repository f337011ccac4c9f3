"""mmdetection (v1) SSD face detector exported with torch.onnx: `multiclass_nms` keeps, per class,
`cls_inds = multi_scores[:, i] > score_thr` (`if not cls_inds.any(): continue`), concatenates the kept boxes and
then `if bboxes.shape[0] > max_num:` sorts and keeps the top `max_num`; the export log in the PR thread is a
list of TracerWarnings on exactly these lines ("Converting a tensor to a Python boolean might cause the trace to
be incorrect"), so the traced graph keeps the box count and branches of the export image. (The compiled
`nms_op` call on each class is left out.)

Source: https://github.com/open-mmlab/mmdetection/pull/673
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "control_flow"
DYNAMIC = {"img": {2: "height", 3: "width"}}
BLIND = "domains-15"


def multiclass_nms(multi_bboxes, multi_scores, score_thr, nms_cfg, max_num=-1, score_factors=None):
    num_classes = multi_scores.shape[1]
    bboxes, labels = [], []
    for i in range(1, num_classes):
        cls_inds = multi_scores[:, i] > score_thr
        if not cls_inds.any():
            continue
        # get bboxes and scores of this class
        if multi_bboxes.shape[1] == 4:
            _bboxes = multi_bboxes[cls_inds, :]
        else:
            _bboxes = multi_bboxes[cls_inds, i * 4:(i + 1) * 4]
        _scores = multi_scores[cls_inds, i]
        if score_factors is not None:
            _scores *= score_factors[cls_inds]
        cls_dets = torch.cat([_bboxes, _scores[:, None]], dim=1)
        # cls_dets, _ = nms_op(cls_dets, **nms_cfg_)
        cls_labels = multi_bboxes.new_full((cls_dets.shape[0], ), i - 1, dtype=torch.long)
        bboxes.append(cls_dets)
        labels.append(cls_labels)
    if bboxes:
        bboxes = torch.cat(bboxes)
        labels = torch.cat(labels)
        if bboxes.shape[0] > max_num:
            _, inds = bboxes[:, -1].sort(descending=True)
            inds = inds[:max_num]
            bboxes = bboxes[inds]
            labels = labels[inds]
    else:
        bboxes = multi_bboxes.new_zeros((0, 5))
        labels = multi_bboxes.new_zeros((0, ), dtype=torch.long)
    return bboxes, labels


class SSDFaceDetector(nn.Module):
    def __init__(self, num_classes=2, num_anchors=2):
        super().__init__()
        self.num_classes = num_classes
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, stride=4, padding=1), nn.ReLU(),
                                      nn.Conv2d(16, 16, 3, stride=2, padding=1), nn.ReLU())
        self.cls_conv = nn.Conv2d(16, num_anchors * num_classes, 3, padding=1)
        self.reg_conv = nn.Conv2d(16, num_anchors * 4, 3, padding=1)
        self.test_cfg = dict(nms=dict(type='nms', iou_thr=0.45), min_bbox_size=0, score_thr=0.3, max_per_img=50)

    def forward(self, img):
        feat = self.backbone(img)
        cls_score = self.cls_conv(feat)[0].permute(1, 2, 0).reshape(-1, self.num_classes)
        bbox_pred = self.reg_conv(feat)[0].permute(1, 2, 0).reshape(-1, 4)
        mlvl_scores = cls_score.softmax(-1)
        mlvl_bboxes = bbox_pred  # delta2bbox(anchors, bbox_pred, ...) left out
        cfg = self.test_cfg
        det_bboxes, det_labels = multiclass_nms(mlvl_bboxes, mlvl_scores, cfg['score_thr'], cfg['nms'],
                                                cfg['max_per_img'])
        return det_bboxes, det_labels


def make_model():
    return SSDFaceDetector().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(1, 3, 128, 96),), (torch.randn(1, 3, 48, 32),)]


def probe_inputs():
    return other_inputs()
