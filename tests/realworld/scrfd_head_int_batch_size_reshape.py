"""SCRFD face detector (insightface) head flattening each stride's cls / bbox / kps maps for ONNX with
`batch_size = int(cls_score.shape[0])` then `.reshape(batch_size, -1, C)`: the export with a dynamic batch axis
bakes the example batch into the Reshape, so the model outputs the wrong batch dim for any other batch size.

Source: https://github.com/deepinsight/insightface/pull/1593
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"img": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-9"


class Scale(nn.Module):
    def __init__(self, scale=1.0):
        super().__init__()
        self.scale = nn.Parameter(torch.tensor(scale, dtype=torch.float))

    def forward(self, x):
        return x * self.scale


class SCRFDHead(nn.Module):
    """Shared-stride head (strides_share=True, use_kps=True, use_dfl=False); GN conv stacks trimmed to 2."""

    def __init__(self, num_classes=1, in_channels=16, feat_channels=16, strides=(8, 16, 32)):
        super().__init__()
        self.cls_out_channels = num_classes
        self.num_anchors = 2
        self.NK = 5
        self.strides = strides
        self.cls_convs = nn.Sequential(nn.Conv2d(in_channels, feat_channels, 3, padding=1), nn.GroupNorm(4, feat_channels), nn.ReLU())
        self.reg_convs = nn.Sequential(nn.Conv2d(in_channels, feat_channels, 3, padding=1), nn.GroupNorm(4, feat_channels), nn.ReLU())
        self.stride_cls = nn.Conv2d(feat_channels, self.cls_out_channels * self.num_anchors, 3, padding=1)
        self.stride_reg = nn.Conv2d(feat_channels, 4 * self.num_anchors, 3, padding=1)
        self.stride_kps = nn.Conv2d(feat_channels, self.NK * 2 * self.num_anchors, 3, padding=1)
        self.scales = nn.ModuleList([Scale(1.0) for _ in strides])

    def forward_single(self, x, scale, stride):
        cls_feat = self.cls_convs(x)
        reg_feat = self.reg_convs(x)
        cls_score = self.stride_cls(cls_feat)
        bbox_pred = scale(self.stride_reg(reg_feat))
        kps_pred = self.stride_kps(reg_feat)
        # fix batch dim for onnx export of scrfd
        batch_size = int(cls_score.shape[0])
        cls_score = cls_score.permute(0, 2, 3, 1).reshape(batch_size, -1, self.cls_out_channels).sigmoid()
        bbox_pred = bbox_pred.permute(0, 2, 3, 1).reshape(batch_size, -1, 4)
        kps_pred = kps_pred.permute(0, 2, 3, 1).reshape(batch_size, -1, 10)
        return cls_score, bbox_pred, kps_pred

    def forward(self, feats):
        outs = [self.forward_single(f, s, st) for f, s, st in zip(feats, self.scales, self.strides)]
        cls_scores, bbox_preds, kps_preds = map(list, zip(*outs))
        return cls_scores, bbox_preds, kps_preds


class SCRFD(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.ReLU(), nn.Conv2d(16, 16, 3, 2, 1), nn.ReLU(),
                                  nn.Conv2d(16, 16, 3, 2, 1), nn.ReLU())
        self.down1 = nn.Sequential(nn.Conv2d(16, 16, 3, 2, 1), nn.ReLU())
        self.down2 = nn.Sequential(nn.Conv2d(16, 16, 3, 2, 1), nn.ReLU())
        self.bbox_head = SCRFDHead()

    def forward(self, img):
        c3 = self.stem(img)
        c4 = self.down1(c3)
        c5 = self.down2(c4)
        cls_scores, bbox_preds, kps_preds = self.bbox_head((c3, c4, c5))
        return tuple(cls_scores + bbox_preds + kps_preds)


def make_model():
    return SCRFD().eval()


def example_inputs():
    return (torch.randn(2, 3, 128, 128),)


def other_inputs():
    return [(torch.randn(3, 3, 160, 96),), (torch.randn(1, 3, 96, 128),)]


def probe_inputs():
    return other_inputs()
