"""FlashOCC occupancy (BEVDetOCC + BEVOCCHead2D): the test path `simple_test_occ` runs the channel-to-height occ head
and then `get_occ`, which does `occ_score.argmax(-1).cpu().numpy().astype(np.uint8)` and returns `list(occ_res)`;
FlashOCC's export script cannot export that path and swaps in `model.forward = model.forward_with_argmax`, a
TensorRT forward that returns the in-graph `outs[0].argmax(-1)` label tensor instead.

Source: https://github.com/Yzichen/FlashOCC/blob/master/tools/export_onnx.py
"""
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {"img_feats": {0: "batch"}}
BLIND = "domains-53"


class BEVOCCHead2D(nn.Module):
    def __init__(self, in_dim=32, out_dim=32, Dz=4, num_classes=18, use_predicter=True):
        super(BEVOCCHead2D, self).__init__()
        self.Dz = Dz
        out_channels = out_dim if use_predicter else num_classes * Dz
        self.final_conv = nn.Sequential(nn.Conv2d(in_dim, out_channels, 3, 1, 1, bias=True), nn.ReLU(inplace=True))
        self.use_predicter = use_predicter
        if use_predicter:
            self.predicter = nn.Sequential(
                nn.Linear(out_dim, out_dim * 2),
                nn.Softplus(),
                nn.Linear(out_dim * 2, num_classes * Dz),
            )
        self.num_classes = num_classes

    def forward(self, img_feats):
        # (B, C, Dy, Dx) --> (B, C, Dy, Dx) --> (B, Dx, Dy, C)
        occ_pred = self.final_conv(img_feats).permute(0, 3, 2, 1)
        bs, Dx, Dy = occ_pred.shape[:3]
        if self.use_predicter:
            # (B, Dx, Dy, C) --> (B, Dx, Dy, 2*C) --> (B, Dx, Dy, Dz*n_cls)
            occ_pred = self.predicter(occ_pred)
            occ_pred = occ_pred.view(bs, Dx, Dy, self.Dz, self.num_classes)
        return occ_pred

    def get_occ(self, occ_pred, img_metas=None):
        occ_score = occ_pred.softmax(-1)    # (B, Dx, Dy, Dz, C)
        occ_res = occ_score.argmax(-1)      # (B, Dx, Dy, Dz)
        occ_res = occ_res.cpu().numpy().astype(np.uint8)     # (B, Dx, Dy, Dz)
        return list(occ_res)


class BEVDetOCC(nn.Module):
    def __init__(self, upsample=True):
        super().__init__()
        self.upsample = upsample
        self.occ_head = BEVOCCHead2D()

    def forward(self, img_feats):  # simple_test after extract_feat
        occ_bev_feature = img_feats
        if self.upsample:
            occ_bev_feature = F.interpolate(occ_bev_feature, scale_factor=2, mode='bilinear', align_corners=True)
        return self.simple_test_occ(occ_bev_feature)

    def simple_test_occ(self, img_feats, img_metas=None):
        outs = self.occ_head(img_feats)
        occ_preds = self.occ_head.get_occ(outs, img_metas)      # List[(Dx, Dy, Dz), (Dx, Dy, Dz), ...]
        return occ_preds


def make_model():
    return BEVDetOCC().eval()


def example_inputs():
    return (torch.randn(1, 32, 20, 20),)


def other_inputs():
    return [(torch.randn(2, 32, 20, 20),), (torch.randn(3, 32, 20, 20),)]


def probe_inputs():
    return other_inputs()
