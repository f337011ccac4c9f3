"""BackgroundMattingV2 MattingRefine: the Refiner picks refinement pixels with topk/scatter, takes
`idx = torch.nonzero(ref.squeeze(1))`, branches on `if idx[0].size(0) > 0`, crops patches with
`x.permute(...).unfold(...).unfold(...)[idx[0], idx[1], idx[2]]` and writes them back with
`x[idx[0], idx[1], idx[2]] = y`; the commit ("Improve ONNX compatibility") says the unfold crop is unlikely to
work for ONNX and adds gather / scatter_element alternatives. (MobileNetV2 backbone shown as a conv stack.)

Source: https://github.com/PeterL1n/BackgroundMattingV2/commit/13cb499ecedb76be1bf9b42f08ab90e21d71b820
"""
from typing import Tuple

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"src": {0: "batch", 2: "height", 3: "width"}, "bgr": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-33"


class Refiner(nn.Module):
    def __init__(self, mode='sampling', sample_pixels=1600, threshold=0.1, kernel_size=3,
                 prevent_oversampling=True, patch_crop_method='unfold', patch_replace_method='scatter_nd'):
        super().__init__()
        self.mode = mode
        self.sample_pixels = sample_pixels
        self.threshold = threshold
        self.kernel_size = kernel_size
        self.prevent_oversampling = prevent_oversampling
        self.patch_crop_method = patch_crop_method
        self.patch_replace_method = patch_replace_method
        channels = [32, 24, 16, 12, 4]
        self.conv1 = nn.Conv2d(channels[0] + 6 + 4, channels[1], kernel_size, bias=False)
        self.bn1 = nn.BatchNorm2d(channels[1])
        self.conv2 = nn.Conv2d(channels[1], channels[2], kernel_size, bias=False)
        self.bn2 = nn.BatchNorm2d(channels[2])
        self.conv3 = nn.Conv2d(channels[2] + 6, channels[3], kernel_size, bias=False)
        self.bn3 = nn.BatchNorm2d(channels[3])
        self.conv4 = nn.Conv2d(channels[3], channels[4], kernel_size, bias=True)
        self.relu = nn.ReLU(True)

    def forward(self, src, bgr, pha, fgr, err, hid):
        H_full, W_full = src.shape[2:]
        H_half, W_half = H_full // 2, W_full // 2
        H_quat, W_quat = H_full // 4, W_full // 4
        src_bgr = torch.cat([src, bgr], dim=1)

        err = F.interpolate(err, (H_quat, W_quat), mode='bilinear', align_corners=False)
        ref = self.select_refinement_regions(err)
        idx = torch.nonzero(ref.squeeze(1))
        idx = idx[:, 0], idx[:, 1], idx[:, 2]

        if idx[0].size(0) > 0:
            x = torch.cat([hid, pha, fgr], dim=1)
            x = F.interpolate(x, (H_half, W_half), mode='bilinear', align_corners=False)
            x = self.crop_patch(x, idx, 2, 3 if self.kernel_size == 3 else 0)
            y = F.interpolate(src_bgr, (H_half, W_half), mode='bilinear', align_corners=False)
            y = self.crop_patch(y, idx, 2, 3 if self.kernel_size == 3 else 0)
            x = self.relu(self.bn1(self.conv1(torch.cat([x, y], dim=1))))
            x = self.relu(self.bn2(self.conv2(x)))
            x = F.interpolate(x, 8 if self.kernel_size == 3 else 4, mode='nearest')
            y = self.crop_patch(src_bgr, idx, 4, 2 if self.kernel_size == 3 else 0)
            x = self.relu(self.bn3(self.conv3(torch.cat([x, y], dim=1))))
            x = self.conv4(x)
            out = torch.cat([pha, fgr], dim=1)
            out = F.interpolate(out, (H_full, W_full), mode='bilinear', align_corners=False)
            out = self.replace_patch(out, x, idx)
            pha = out[:, :1]
            fgr = out[:, 1:]
        else:
            pha = F.interpolate(pha, (H_full, W_full), mode='bilinear', align_corners=False)
            fgr = F.interpolate(fgr, (H_full, W_full), mode='bilinear', align_corners=False)
        return pha, fgr, ref

    def crop_patch(self, x: torch.Tensor, idx: Tuple[torch.Tensor, torch.Tensor, torch.Tensor], size: int, padding: int):
        if padding != 0:
            x = F.pad(x, (padding,) * 4)
        # Use unfold. Best performance for PyTorch and TorchScript.
        return x.permute(0, 2, 3, 1) \
                .unfold(1, size + 2 * padding, size) \
                .unfold(2, size + 2 * padding, size)[idx[0], idx[1], idx[2]]

    def replace_patch(self, x: torch.Tensor, y: torch.Tensor, idx: Tuple[torch.Tensor, torch.Tensor, torch.Tensor]):
        xB, xC, xH, xW = x.shape
        yB, yC, yH, yW = y.shape
        # Use scatter_nd. Best performance for PyTorch and TorchScript. Replacing patch by patch.
        x = x.view(xB, xC, xH // yH, yH, xW // yW, yW).permute(0, 2, 4, 1, 3, 5)
        x[idx[0], idx[1], idx[2]] = y
        x = x.permute(0, 3, 1, 4, 2, 5).view(xB, xC, xH, xW)
        return x

    def select_refinement_regions(self, err: torch.Tensor):
        if self.mode == 'sampling':
            b, _, h, w = err.shape
            err = err.view(b, -1)
            idx = err.topk(self.sample_pixels // 16, dim=1, sorted=False).indices
            ref = torch.zeros_like(err)
            ref.scatter_(1, idx, 1.)
            if self.prevent_oversampling:
                ref.mul_(err.gt(0).float())
            ref = ref.view(b, 1, h, w)
        else:
            ref = err.gt(self.threshold).float()
        return ref


class MattingRefine(nn.Module):
    def __init__(self, backbone_scale=0.25):
        super().__init__()
        self.backbone_scale = backbone_scale
        self.base = nn.Sequential(nn.Conv2d(6, 32, 3, 1, 1), nn.ReLU(), nn.Conv2d(32, 1 + 3 + 1 + 32, 3, 1, 1))
        self.refiner = Refiner()

    def forward(self, src, bgr):
        src_sm = F.interpolate(src, scale_factor=self.backbone_scale, mode='bilinear', align_corners=False,
                               recompute_scale_factor=True)
        bgr_sm = F.interpolate(bgr, scale_factor=self.backbone_scale, mode='bilinear', align_corners=False,
                               recompute_scale_factor=True)
        x = self.base(torch.cat([src_sm, bgr_sm], dim=1))
        pha_sm = x[:, 0:1].clamp(0., 1.)
        fgr_sm = x[:, 1:4].add(src_sm).clamp(0., 1.)
        err_sm = x[:, 4:5].clamp(0., 1.)
        hid_sm = x[:, 5:].relu()
        pha, fgr, ref_sm = self.refiner(src, bgr, pha_sm, fgr_sm, err_sm, hid_sm)
        pha = pha.clamp(0., 1.)
        fgr = fgr.add(src).clamp(0., 1.)
        return pha, fgr, pha_sm, fgr_sm, err_sm, ref_sm


def make_model():
    return MattingRefine().eval()


def example_inputs():
    return (torch.rand(1, 3, 64, 96), torch.rand(1, 3, 64, 96))


def other_inputs():
    return [(torch.rand(2, 3, 80, 80), torch.rand(2, 3, 80, 80)),
            (torch.rand(1, 3, 48, 64), torch.rand(1, 3, 48, 64))]


def probe_inputs():
    return other_inputs()
