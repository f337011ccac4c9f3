"""SOLO instance segmentation (mmdetection SOLOHead) exported with its post-processing: _get_results_single
thresholds the category scores with a boolean mask, returns early `if len(cls_scores) == 0` / `if
keep.sum() == 0`, sizes the per-point stride tensor from a tensor value (`new_ones(lvl_interval[-1])`) and
slices it level by level with tensor bounds; the reporter's conversion of SOLO to ONNX always errors
(the maintainers point to an unfinished ONNX-SOLO PR).

Source: https://github.com/open-mmlab/mmdetection/issues/6916
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"img": {2: "height", 3: "width"}}
BLIND = "domains-30"


class InstanceData(dict):
    __getattr__ = dict.__getitem__
    __setattr__ = dict.__setitem__


class Cfg(dict):
    __getattr__ = dict.__getitem__


class SOLOHead(nn.Module):
    def __init__(self, num_classes=3, in_channels=16, strides=(8, 16, 32), num_grids=(8, 6, 4)):
        super().__init__()
        self.num_classes = num_classes
        self.cls_out_channels = num_classes
        self.strides = strides
        self.num_grids = num_grids
        self.num_levels = len(strides)
        self.conv_mask_list = nn.ModuleList(nn.Conv2d(in_channels + 2, g ** 2, 3, padding=1) for g in num_grids)
        self.conv_cls = nn.Conv2d(in_channels, num_classes, 3, padding=1)
        self.test_cfg = Cfg(score_thr=0.1, mask_thr=0.5, nms_pre=500, max_per_img=100)

    def forward(self, feats):
        mlvl_mask_preds, mlvl_cls_preds = [], []
        upsampled_size = (feats[0].size(-2) * 2, feats[0].size(-1) * 2)
        for i in range(self.num_levels):
            x = feats[i]
            y_range = torch.linspace(-1, 1, x.shape[-2], device=x.device)
            x_range = torch.linspace(-1, 1, x.shape[-1], device=x.device)
            yy, xx = torch.meshgrid(y_range, x_range, indexing='ij')
            coord_feat = torch.stack([xx, yy])[None].expand(x.shape[0], -1, -1, -1)
            mask_feat = torch.cat([x, coord_feat], 1)
            mask_feat = F.interpolate(mask_feat, scale_factor=2, mode='bilinear')
            mask_pred = self.conv_mask_list[i](mask_feat)
            mask_pred = F.interpolate(mask_pred.sigmoid(), size=upsampled_size, mode='bilinear')
            cls_feat = F.interpolate(x, size=self.num_grids[i], mode='bilinear')
            cls_pred = self.conv_cls(cls_feat).sigmoid()
            local_max = F.max_pool2d(cls_pred, 2, stride=1, padding=1)
            keep_mask = local_max[:, :, :-1, :-1] == cls_pred
            mlvl_mask_preds.append(mask_pred)
            mlvl_cls_preds.append(cls_pred * keep_mask)
        return mlvl_mask_preds, mlvl_cls_preds

    def get_results(self, mlvl_mask_preds, mlvl_cls_scores, img_metas, **kwargs):
        mlvl_cls_scores = [item.permute(0, 2, 3, 1) for item in mlvl_cls_scores]
        assert len(mlvl_mask_preds) == len(mlvl_cls_scores)
        num_levels = len(mlvl_cls_scores)

        results_list = []
        for img_id in range(len(img_metas)):
            cls_pred_list = [mlvl_cls_scores[lvl][img_id].view(-1, self.cls_out_channels)
                             for lvl in range(num_levels)]
            mask_pred_list = [mlvl_mask_preds[lvl][img_id] for lvl in range(num_levels)]

            cls_pred_list = torch.cat(cls_pred_list, dim=0)
            mask_pred_list = torch.cat(mask_pred_list, dim=0)

            results = self._get_results_single(cls_pred_list, mask_pred_list, img_meta=img_metas[img_id])
            results_list.append(results)

        return results_list

    def _get_results_single(self, cls_scores, mask_preds, img_meta, cfg=None):
        """mmdet/models/dense_heads/solo_head.py (mask_matrix_nms left out)."""

        def empty_results(results, cls_scores):
            """Generate a empty results."""
            results.scores = cls_scores.new_ones(0)
            results.masks = cls_scores.new_zeros(0, *results.ori_shape[:2])
            results.labels = cls_scores.new_ones(0)
            return results

        cfg = self.test_cfg if cfg is None else cfg
        assert len(cls_scores) == len(mask_preds)
        results = InstanceData(img_meta)

        featmap_size = mask_preds.size()[-2:]

        img_shape = results.img_shape
        ori_shape = results.ori_shape

        h, w, _ = img_shape
        upsampled_size = (featmap_size[0] * 4, featmap_size[1] * 4)

        score_mask = (cls_scores > cfg.score_thr)
        cls_scores = cls_scores[score_mask]
        if len(cls_scores) == 0:
            return empty_results(results, cls_scores)

        inds = score_mask.nonzero()
        cls_labels = inds[:, 1]

        # Filter the mask mask with an area is smaller than
        # stride of corresponding feature level
        lvl_interval = cls_labels.new_tensor(self.num_grids).pow(2).cumsum(0)
        strides = cls_scores.new_ones(lvl_interval[-1])
        strides[:lvl_interval[0]] *= self.strides[0]
        for lvl in range(1, self.num_levels):
            strides[lvl_interval[lvl - 1]:lvl_interval[lvl]] *= self.strides[lvl]
        strides = strides[inds[:, 0]]
        mask_preds = mask_preds[inds[:, 0]]

        masks = mask_preds > cfg.mask_thr
        sum_masks = masks.sum((1, 2)).float()
        keep = sum_masks > strides
        if keep.sum() == 0:
            return empty_results(results, cls_scores)
        masks = masks[keep]
        mask_preds = mask_preds[keep]
        sum_masks = sum_masks[keep]
        cls_scores = cls_scores[keep]
        cls_labels = cls_labels[keep]

        # maskness.
        mask_scores = (mask_preds * masks).sum((1, 2)) / sum_masks
        cls_scores *= mask_scores

        mask_preds = F.interpolate(mask_preds.unsqueeze(0), size=upsampled_size, mode='bilinear')[:, :, :h, :w]
        mask_preds = F.interpolate(mask_preds, size=ori_shape[:2], mode='bilinear').squeeze(0)
        masks = mask_preds > cfg.mask_thr

        results.masks = masks
        results.labels = cls_labels
        results.scores = cls_scores

        return results


class SOLO(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.ModuleList([
            nn.Sequential(nn.Conv2d(3, 16, 3, stride=8, padding=1), nn.ReLU()),
            nn.Sequential(nn.Conv2d(16, 16, 3, stride=2, padding=1), nn.ReLU()),
            nn.Sequential(nn.Conv2d(16, 16, 3, stride=2, padding=1), nn.ReLU()),
        ])
        self.mask_head = SOLOHead()

    def forward(self, img):
        feats, x = [], img
        for layer in self.backbone:
            x = layer(x)
            feats.append(x)
        img_h, img_w = img.shape[-2:]
        img_metas = [dict(img_shape=(img_h, img_w, 3), ori_shape=(img_h, img_w, 3))]
        mlvl_mask_preds, mlvl_cls_scores = self.mask_head(feats)
        results = self.mask_head.get_results(mlvl_mask_preds, mlvl_cls_scores, img_metas)[0]
        return results.masks, results.labels, results.scores


def make_model():
    return SOLO().eval()


def example_inputs():
    return (torch.randn(1, 3, 256, 320),)


def other_inputs():
    return [(torch.randn(1, 3, 320, 224),), (torch.randn(1, 3, 192, 256),)]


def probe_inputs():
    return other_inputs()
