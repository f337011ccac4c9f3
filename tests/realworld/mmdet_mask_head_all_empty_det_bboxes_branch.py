"""mmdetection StandardRoIHead.simple_test_mask: `if all(det_bbox.shape[0] == 0 for det_bbox in det_bboxes):`
returns empty mask results, else `bbox2roi` (itself `if bboxes.size(0) > 0:`) feeds the mask head; the number of
detections comes from the score threshold, so the branch depends on the image. The PR makes ONNX export raise
"[ONNX Error] Can not record MaskHead as it has not been executed this time" when the traced image has no boxes.
(The RoIAlign is a grid_sample stand-in; the per-image lists are returned as tensors.)

Source: https://github.com/open-mmlab/mmdetection/pull/5062
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"img": {2: "height", 3: "width"}}
BLIND = "domains-15"


def bbox2roi(bbox_list):
    rois_list = []
    for img_id, bboxes in enumerate(bbox_list):
        if bboxes.size(0) > 0:
            img_inds = bboxes.new_full((bboxes.size(0), 1), img_id)
            rois = torch.cat([img_inds, bboxes[:, :4]], dim=-1)
        else:
            rois = bboxes.new_zeros((0, 5))
        rois_list.append(rois)
    rois = torch.cat(rois_list, 0)
    return rois


def roi_extract(feat, rois, out_size=14, spatial_scale=0.25):
    H, W = feat.shape[-2:]
    x1, y1, x2, y2 = (rois[:, 1:] * spatial_scale).unbind(1)
    theta = torch.zeros(rois.shape[0], 2, 3, dtype=feat.dtype)
    theta[:, 0, 0] = (x2 - x1) / W
    theta[:, 0, 2] = (x1 + x2) / W - 1
    theta[:, 1, 1] = (y2 - y1) / H
    theta[:, 1, 2] = (y1 + y2) / H - 1
    grid = F.affine_grid(theta, [rois.shape[0], feat.shape[1], out_size, out_size], align_corners=False)
    return F.grid_sample(feat[rois[:, 0].long()], grid, align_corners=False)


class MaskRCNNLite(nn.Module):
    def __init__(self, num_classes=3, score_thr=0.05):
        super().__init__()
        self.num_classes = num_classes
        self.score_thr = score_thr
        self.backbone = nn.Conv2d(3, 8, 3, stride=4, padding=1)
        self.cls = nn.Conv2d(8, 1, 1)
        nn.init.constant_(self.cls.bias, -4.595)  # bias_init_with_prob(0.01)
        self.reg = nn.Conv2d(8, 4, 1)
        self.mask_head = nn.Sequential(nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, num_classes, 1))

    def _mask_forward(self, x, rois):
        mask_feats = roi_extract(x, rois)
        mask_pred = self.mask_head(mask_feats)
        return dict(mask_pred=mask_pred, mask_feats=mask_feats)

    def simple_test_mask(self, x, det_bboxes, rescale=False):
        if all(det_bbox.shape[0] == 0 for det_bbox in det_bboxes):
            segm_results = det_bboxes[0].new_zeros((0, self.num_classes, 14, 14))
        else:
            _bboxes = [det_bboxes[i][:, :4] for i in range(len(det_bboxes))]
            mask_rois = bbox2roi(_bboxes)
            mask_results = self._mask_forward(x, mask_rois)
            segm_results = mask_results['mask_pred'].sigmoid()
        return segm_results

    def forward(self, img):
        x = torch.relu(self.backbone(img))
        scores = self.cls(x).sigmoid().flatten(1)[0]
        ys, xs = torch.meshgrid(torch.arange(x.shape[2]), torch.arange(x.shape[3]), indexing="ij")
        centers = torch.stack([xs, ys, xs, ys], -1).reshape(-1, 4).float() * 4 + 2
        bboxes = centers + self.reg(x)[0].permute(1, 2, 0).reshape(-1, 4).exp() * torch.tensor([-8., -8., 8., 8.])
        keep = scores > self.score_thr
        det_bboxes = [torch.cat([bboxes[keep], scores[keep, None]], dim=1)]
        return det_bboxes[0], self.simple_test_mask(x, det_bboxes)


def make_model():
    return MaskRCNNLite().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 64) * 16,)


def other_inputs():
    return [(torch.zeros(1, 3, 48, 80),), (torch.randn(1, 3, 96, 72) * 16,)]


def probe_inputs():
    return other_inputs()
