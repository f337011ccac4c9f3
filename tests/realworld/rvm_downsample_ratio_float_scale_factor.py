"""RobustVideoMatting `MattingNetwork` exported with its `downsample_ratio` as a model input (as in
`torch.onnx.export(model, (src, *rec, downsample_ratio), ...)`): forward takes `downsample_ratio: float`, branches
`if downsample_ratio != 1:` and feeds it to `F.interpolate(..., scale_factor=scale_factor)`; passed as a tensor the
export dies in `upsample_bilinear2d()` ("received an invalid combination of arguments"), and as a float it is not an
ONNX input at all.

Source: https://github.com/xlite-dev/RVM-Inference/issues/17
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "cross-call"
FAMILY = "scalars"
DYNAMIC = {"src": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-22"


class DeepGuidedFilterRefiner(nn.Module):
    def __init__(self, hid_channels=16):
        super().__init__()
        self.box_filter = nn.Conv2d(4, 4, kernel_size=3, padding=1, bias=False, groups=4)
        self.box_filter.weight.data[...] = 1 / 9
        self.conv = nn.Sequential(
            nn.Conv2d(4 * 2 + hid_channels, hid_channels, kernel_size=1, bias=False),
            nn.BatchNorm2d(hid_channels),
            nn.ReLU(True),
            nn.Conv2d(hid_channels, 4, kernel_size=1, bias=True)
        )

    def forward(self, fine_src, base_src, base_fgr, base_pha, base_hid):
        fine_x = torch.cat([fine_src, fine_src.mean(1, keepdim=True)], dim=1)
        base_x = torch.cat([base_src, base_src.mean(1, keepdim=True)], dim=1)
        base_y = torch.cat([base_fgr, base_pha], dim=1)

        mean_x = self.box_filter(base_x)
        mean_y = self.box_filter(base_y)
        cov_xy = self.box_filter(base_x * base_y) - mean_x * mean_y
        var_x = self.box_filter(base_x * base_x) - mean_x * mean_x

        A = self.conv(torch.cat([cov_xy, var_x, base_hid], dim=1))
        b = mean_y - A * mean_x

        H, W = fine_src.shape[2:]
        A = F.interpolate(A, (H, W), mode='bilinear', align_corners=False)
        b = F.interpolate(b, (H, W), mode='bilinear', align_corners=False)

        out = A * fine_x + b
        fgr, pha = out.split([3, 1], dim=1)
        return fgr, pha


class MattingNetwork(nn.Module):
    def __init__(self, hid_channels=16):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.ReLU(), nn.Conv2d(16, 32, 3, 2, 1), nn.ReLU())
        self.decoder = nn.Sequential(nn.Conv2d(32 + 3, hid_channels, 3, 1, 1), nn.ReLU())
        self.project_mat = nn.Conv2d(hid_channels, 4, 1)
        self.refiner = DeepGuidedFilterRefiner(hid_channels)

    def forward(self, src, downsample_ratio: float = 1, segmentation_pass: bool = False):
        if downsample_ratio != 1:
            src_sm = self._interpolate(src, scale_factor=downsample_ratio)
        else:
            src_sm = src

        f4 = self.backbone(src_sm)
        f4 = F.interpolate(f4, size=src_sm.shape[2:], mode='bilinear', align_corners=False)
        hid = self.decoder(torch.cat([f4, src_sm], dim=1))

        fgr_residual, pha = self.project_mat(hid).split([3, 1], dim=-3)
        if downsample_ratio != 1:
            fgr_residual, pha = self.refiner(src, src_sm, fgr_residual, pha, hid)
        fgr = fgr_residual + src
        fgr = fgr.clamp(0., 1.)
        pha = pha.clamp(0., 1.)
        return [fgr, pha]

    def _interpolate(self, x, scale_factor: float):
        if x.ndim == 5:
            B, T = x.shape[:2]
            x = F.interpolate(x.flatten(0, 1), scale_factor=scale_factor,
                              mode='bilinear', align_corners=False, recompute_scale_factor=False)
            x = x.unflatten(0, (B, T))
        else:
            x = F.interpolate(x, scale_factor=scale_factor,
                              mode='bilinear', align_corners=False, recompute_scale_factor=False)
        return x


def make_model():
    return MattingNetwork().eval()


def example_inputs():
    return (torch.rand(1, 3, 64, 64), 0.25)


def other_inputs():
    return [(torch.rand(2, 3, 96, 128), 0.5), (torch.rand(1, 3, 80, 48), 0.25)]


def probe_inputs():
    return other_inputs()
