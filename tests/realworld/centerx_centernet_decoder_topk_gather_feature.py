"""centerX (CenterNet on detectron2): the user exports the detector together with
`CenterNetDecoder.decode` (pseudo-NMS max-pool, `topk_score` with `torch.topk(..., K)`,
`(topk_inds / width).int().float()`, `(index / K).int()` and `gather_feature` with
`index.unsqueeze(len(index.shape)).expand(*index.shape, dim)`) and the ONNX conversion fails in the
decode part around `gather` (the repo's own centerX2onnx.py leaves the decode out).

Source: https://github.com/JDAI-CV/centerX/issues/31
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-29"


def gather_feature(fmap, index, mask=None, use_transform=False):
    if use_transform:
        # change a (N, C, H, W) tenor to (N, HxW, C) shape
        batch, channel = fmap.shape[:2]
        fmap = fmap.view(batch, channel, -1).permute((0, 2, 1)).contiguous()

    dim = fmap.size(-1)
    index = index.unsqueeze(len(index.shape)).expand(*index.shape, dim)
    fmap = fmap.gather(dim=1, index=index)
    if mask is not None:
        mask = mask.unsqueeze(2).expand_as(fmap)
        fmap = fmap[mask]
        fmap = fmap.reshape(-1, dim)
    return fmap


class CenterNetDecoder(object):
    @staticmethod
    def decode(fmap, wh, reg=None, cat_spec_wh=False, K=100):
        batch, channel, height, width = fmap.shape

        fmap = CenterNetDecoder.pseudo_nms(fmap)

        scores, index, clses, ys, xs = CenterNetDecoder.topk_score(fmap, K=K)
        if reg is not None:
            reg = gather_feature(reg, index, use_transform=True)
            reg = reg.reshape(batch, K, 2)
            xs = xs.view(batch, K, 1) + reg[:, :, 0:1]
            ys = ys.view(batch, K, 1) + reg[:, :, 1:2]
        else:
            xs = xs.view(batch, K, 1) + 0.5
            ys = ys.view(batch, K, 1) + 0.5
        wh = gather_feature(wh, index, use_transform=True)
        wh = wh.reshape(batch, K, 2)

        clses = clses.reshape(batch, K, 1).float()
        scores = scores.reshape(batch, K, 1)

        half_w, half_h = wh[..., 0:1] / 2, wh[..., 1:2] / 2
        bboxes = torch.cat([xs - half_w, ys - half_h, xs + half_w, ys + half_h], dim=2)
        return bboxes, scores, clses

    @staticmethod
    def pseudo_nms(fmap, pool_size=3):
        pad = (pool_size - 1) // 2
        fmap_max = F.max_pool2d(fmap, pool_size, stride=1, padding=pad)
        keep = (fmap_max == fmap).float()
        return fmap * keep

    @staticmethod
    def topk_score(scores, K=40):
        batch, channel, height, width = scores.shape

        # get topk score and its index in every H x W(channel dim) feature map
        topk_scores, topk_inds = torch.topk(scores.reshape(batch, channel, -1), K)

        topk_inds = topk_inds % (height * width)
        topk_ys = (topk_inds / width).int().float()
        topk_xs = (topk_inds % width).int().float()

        # get all topk in in a batch
        topk_score, index = torch.topk(topk_scores.reshape(batch, -1), K)
        # div by K because index is grouped by K(C x K shape)
        topk_clses = (index / K).int()
        topk_inds = gather_feature(topk_inds.view(batch, -1, 1), index).reshape(batch, K)
        topk_ys = gather_feature(topk_ys.reshape(batch, -1, 1), index).reshape(batch, K)
        topk_xs = gather_feature(topk_xs.reshape(batch, -1, 1), index).reshape(batch, K)

        return topk_score, topk_inds, topk_clses, topk_ys, topk_xs


class CenterX(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, stride=4, padding=1), nn.ReLU())
        self.cls = nn.Conv2d(16, num_classes, 1)
        self.wh = nn.Conv2d(16, 2, 1)
        self.reg = nn.Conv2d(16, 2, 1)

    def forward(self, x):
        feat = self.backbone(x / 255.)
        fmap = self.cls(feat).sigmoid()
        return CenterNetDecoder.decode(fmap, self.wh(feat), self.reg(feat), K=20)


def make_model():
    return CenterX().eval()


def example_inputs():
    return (torch.rand(1, 3, 64, 96) * 255,)


def other_inputs():
    return [(torch.rand(2, 3, 96, 64) * 255,), (torch.rand(3, 3, 48, 80) * 255,)]


def probe_inputs():
    return other_inputs()
