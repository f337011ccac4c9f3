"""Dome-DETR (tiny-object DETR) hybrid encoder: the DeFE density map is pooled with
`F.adaptive_max_pool2d(defe_feature, (H // self.mwas_window_size, W // self.mwas_window_size))`, H and W taken from
the next feature level's `.shape[2:]`; tools/deployment/export_onnx.py (torch.onnx.export, opset 16, batch axis
dynamic) fails with "Unsupported: ONNX export of operator adaptive pooling, since output_size is not constant".

Source: https://github.com/RicePasteM/Dome-DETR/issues/19
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"images": {0: "N"}}
BLIND = "operators-9"


class OptimizedDeFE(nn.Module):
    """src/zoo/dome/defe.py, trimmed: a few dilated depthwise-separable convs -> density map + regressed value."""

    def __init__(self, in_ch=32):
        super().__init__()
        layers = []
        for dilation in (1, 2, 3):
            layers += [nn.Conv2d(in_ch, in_ch, 3, padding=dilation, dilation=dilation, groups=in_ch),
                       nn.Conv2d(in_ch, in_ch, 1), nn.ReLU(inplace=True), nn.BatchNorm2d(in_ch)]
        self.body = nn.Sequential(*layers)
        self.density_head = nn.Sequential(nn.Conv2d(in_ch, 1, 1), nn.Sigmoid())
        self.reg_head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(in_ch, 1))

    def forward(self, x):
        x = self.body(x)
        return self.density_head(x), self.reg_head(x)


class HybridEncoderDeFE(nn.Module):
    def __init__(self, hidden_dim=32, mwas_window_size=5):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.mwas_window_size = mwas_window_size
        # stand-in backbone giving the two finest levels (strides 8 and 16)
        self.backbone_s8 = nn.Sequential(nn.Conv2d(3, hidden_dim, 3, 4, 1), nn.ReLU(), nn.Conv2d(hidden_dim, hidden_dim, 3, 2, 1))
        self.backbone_s16 = nn.Sequential(nn.Conv2d(hidden_dim, hidden_dim, 3, 2, 1), nn.ReLU())
        self.input_proj = nn.ModuleList([nn.Conv2d(hidden_dim, hidden_dim, 1) for _ in range(2)])
        self.DeFE = OptimizedDeFE(hidden_dim)

    def forward(self, images):
        c3 = self.backbone_s8(images)
        feats = [c3, self.backbone_s16(c3)]
        proj_feats = [self.input_proj[i](feat) for i, feat in enumerate(feats)]

        defe_feature, reg_value = self.DeFE(proj_feats[0])
        W, H = proj_feats[1].shape[2:]
        defe_feature_pooled = F.adaptive_max_pool2d(defe_feature, (H // self.mwas_window_size, W // self.mwas_window_size))
        W, H = proj_feats[1].shape[2:]
        defe_mask = F.interpolate(defe_feature_pooled, size=(H, W), mode="bilinear", align_corners=True)
        enhanced_memory = proj_feats[1] * (1.0 + defe_mask)
        return enhanced_memory, defe_feature_pooled, reg_value


def make_model():
    return HybridEncoderDeFE().eval()


def example_inputs():
    return (torch.rand(2, 3, 320, 320),)


def other_inputs():
    return [(torch.rand(1, 3, 320, 320),), (torch.rand(3, 3, 320, 320),)]


def probe_inputs():
    return other_inputs()
