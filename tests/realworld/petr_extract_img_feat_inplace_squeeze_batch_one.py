"""PETR (3D detection from multi-camera images) `Petr3D.extract_img_feat` flattens the (B, N, C, H, W)
camera batch by branching on `img.size(0) == 1 and img.size(1) != 1` and calling the in-place
`img.squeeze_()` for a single sample (else `img.view(B * N, C, H, W)`), then re-splits the features with
`img_feat.view(B, int(BN / B), C, H, W)`; tt-forge-models replaces the in-place squeeze_() with
`img.squeeze(0)` "to avoid graph tracing issues".

Source: https://github.com/tenstorrent/tt-forge-models/pull/499
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"img": {0: "batch", 3: "height", 4: "width"}}
BLIND = "domains-55"


class Backbone(nn.Module):
    def __init__(self, out_channels=(16, 32)):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, out_channels[0], 3, 2, 1), nn.BatchNorm2d(out_channels[0]),
                                  nn.ReLU(inplace=True))
        self.layer = nn.Sequential(nn.Conv2d(out_channels[0], out_channels[1], 3, 2, 1),
                                   nn.BatchNorm2d(out_channels[1]), nn.ReLU(inplace=True))

    def forward(self, x):
        c1 = self.stem(x)
        c2 = self.layer(c1)
        return (c1, c2)


class CPFPN(nn.Module):
    def __init__(self, in_channels=(16, 32), out_channels=24):
        super().__init__()
        self.lateral_convs = nn.ModuleList([nn.Conv2d(c, out_channels, 1) for c in in_channels])
        self.fpn_convs = nn.ModuleList([nn.Conv2d(out_channels, out_channels, 3, padding=1) for _ in in_channels])

    def forward(self, inputs):
        laterals = [conv(inputs[i]) for i, conv in enumerate(self.lateral_convs)]
        laterals[0] = laterals[0] + nn.functional.interpolate(laterals[1], size=laterals[0].shape[2:])
        return tuple(self.fpn_convs[i](laterals[i]) for i in range(len(laterals)))


class Petr3D(nn.Module):
    def __init__(self, use_grid_mask=False):
        super().__init__()
        self.img_backbone = Backbone()
        self.img_neck = CPFPN()
        self.with_img_neck = True
        self.use_grid_mask = use_grid_mask

    def extract_img_feat(self, img, img_metas):
        if isinstance(img, list):
            img = torch.stack(img, dim=0)

        B = img.size(0)
        if img is not None:
            input_shape = img.shape[-2:]
            for img_meta in img_metas:
                img_meta.update(input_shape=input_shape)
            if img.dim() == 5:
                if img.size(0) == 1 and img.size(1) != 1:
                    img.squeeze_()
                else:
                    B, N, C, H, W = img.size()
                    img = img.view(B * N, C, H, W)
            img_feats = self.img_backbone(img)
            if isinstance(img_feats, dict):
                img_feats = list(img_feats.values())
        else:
            return None
        if self.with_img_neck:
            img_feats = self.img_neck(img_feats)
        img_feats_reshaped = []
        for img_feat in img_feats:
            BN, C, H, W = img_feat.size()
            img_feats_reshaped.append(img_feat.view(B, int(BN / B), C, H, W))
        return img_feats_reshaped

    def forward(self, img):
        img_metas = [dict()]
        img_feats = self.extract_img_feat(img, img_metas)
        return tuple(img_feats)


def make_model():
    return Petr3D().eval()


def example_inputs():
    return (torch.randn(1, 6, 3, 32, 48),)


def other_inputs():
    return [(torch.randn(2, 6, 3, 40, 56),), (torch.randn(1, 6, 3, 24, 32),)]


def probe_inputs():
    return other_inputs()
