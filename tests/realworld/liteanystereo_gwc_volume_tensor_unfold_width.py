"""LiteAnyStereo (LAS2) builds its group-wise correlation cost volume with a sliding window,
`padded_target.unfold(3, W, 1)` over the left-padded right features. The project's ONNX export script
replaces this function because ".unfold is not exportable to ONNX" (legacy exporter: "Unsupported: ONNX
export of operator Unfold, input size not accessible"), swapping it for a stack of slices.

Source: https://github.com/whdlgp/LiteAnyStereo/blob/11d73908e3b83f3f374eb12c2eef938dde28b2b2/export_onnx.py
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"left": {0: "batch", 2: "height", 3: "width"}, "right": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-39"


def disparity_regression(x, maxdisp):
    assert len(x.shape) == 4
    disp_values = torch.arange(0, maxdisp, dtype=x.dtype, device=x.device)
    disp_values = disp_values.view(1, maxdisp, 1, 1)
    return torch.sum(x * disp_values, 1, keepdim=True)


def build_gwc_volume_fast(refimg_fea, targetimg_fea, maxdisp, num_groups):
    B, C, H, W = refimg_fea.shape
    assert C % num_groups == 0
    channels_per_group = C // num_groups

    ref_volume = refimg_fea.unsqueeze(2).expand(B, C, maxdisp, H, W)
    padded_target = F.pad(targetimg_fea, (maxdisp - 1, 0, 0, 0))
    unfolded_target = padded_target.unfold(3, W, 1)
    target_volume = torch.flip(unfolded_target, [3]).permute(0, 1, 3, 2, 4)

    ref_volume = ref_volume.view(B, num_groups, channels_per_group, maxdisp, H, W)
    target_volume = target_volume.view(B, num_groups, channels_per_group, maxdisp, H, W)
    volume = (ref_volume * target_volume).mean(dim=2)
    return volume.contiguous()


class LiteStereoCostVolume(nn.Module):
    def __init__(self, max_disp=48, num_groups=4, chans=16):
        super().__init__()
        self.max_disp = max_disp
        self.num_groups = num_groups
        self.fnet = nn.Sequential(
            nn.Conv2d(3, chans, 3, stride=2, padding=1), nn.BatchNorm2d(chans), nn.LeakyReLU(0.2),
            nn.Conv2d(chans, chans, 3, stride=2, padding=1), nn.BatchNorm2d(chans), nn.LeakyReLU(0.2),
        )
        self.agg = nn.Conv3d(num_groups, 1, 3, padding=1)

    def forward(self, left, right):
        features_left = self.fnet(left)
        features_right = self.fnet(right)
        gwc_volume = build_gwc_volume_fast(features_left, features_right, self.max_disp // 4, self.num_groups)
        cost = self.agg(gwc_volume).squeeze(1)
        prob = F.softmax(cost, dim=1)
        disp = disparity_regression(prob, self.max_disp // 4)
        return F.interpolate(disp * 4, scale_factor=4, mode="bilinear", align_corners=False)


def make_model():
    return LiteStereoCostVolume().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 96), torch.randn(1, 3, 64, 96))


def other_inputs():
    return [
        (torch.randn(2, 3, 96, 128), torch.randn(2, 3, 96, 128)),
        (torch.randn(1, 3, 48, 80), torch.randn(1, 3, 48, 80)),
    ]


def probe_inputs():
    return other_inputs()
