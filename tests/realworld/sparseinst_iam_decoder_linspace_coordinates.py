"""SparseInst (real-time instance segmentation) IAM decoder: before predicting instance activation maps it
concatenates coordinate features built by `compute_coordinates`, which calls `torch.linspace(-1, 1, h)` /
`torch.linspace(-1, 1, w)` with `h, w = x.size(2), x.size(3)` of the encoder feature map; the "support: fp16,
onnx" commit renames it `compute_coordinates_linspace` ("linspace is not supported in ONNX") and builds the grid
from `torch.arange(h) / (h - 1)` instead.

Source: https://github.com/hustvl/SparseInst/commit/b9cd35f8d1f547332e4b720ae7917bcb49fd7124
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"features": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-63"


def _make_stack_3x3_convs(num_convs, in_channels, out_channels):
    convs = []
    for _ in range(num_convs):
        convs.append(
            nn.Conv2d(in_channels, out_channels, 3, padding=1))
        convs.append(nn.ReLU(True))
        in_channels = out_channels
    return nn.Sequential(*convs)


class InstanceBranch(nn.Module):

    def __init__(self, in_channels, dim=64, num_convs=2, num_masks=20, kernel_dim=32, num_classes=8):
        super().__init__()
        self.num_classes = num_classes
        self.inst_convs = _make_stack_3x3_convs(num_convs, in_channels, dim)
        # iam prediction, a simple conv
        self.iam_conv = nn.Conv2d(dim, num_masks, 3, padding=1)
        # outputs
        self.cls_score = nn.Linear(dim, self.num_classes)
        self.mask_kernel = nn.Linear(dim, kernel_dim)
        self.objectness = nn.Linear(dim, 1)
        bias_value = -math.log((1 - 0.01) / 0.01)
        nn.init.constant_(self.iam_conv.bias, bias_value)
        nn.init.normal_(self.iam_conv.weight, std=0.01)

    def forward(self, features):
        # instance features (x4 convs)
        features = self.inst_convs(features)
        # predict instance activation maps
        iam = self.iam_conv(features)
        iam_prob = iam.sigmoid()

        B, N = iam_prob.shape[:2]
        C = features.size(1)
        # BxNxHxW -> BxNx(HW)
        iam_prob = iam_prob.view(B, N, -1)
        # aggregate features: BxCxHxW -> Bx(HW)xC
        inst_features = torch.bmm(iam_prob, features.view(B, C, -1).permute(0, 2, 1))
        normalizer = iam_prob.sum(-1).clamp(min=1e-6)
        inst_features = inst_features / normalizer[:, :, None]
        # predict classification & segmentation kernel & objectness
        pred_logits = self.cls_score(inst_features)
        pred_kernel = self.mask_kernel(inst_features)
        pred_scores = self.objectness(inst_features)
        return pred_logits, pred_kernel, pred_scores, iam


class MaskBranch(nn.Module):

    def __init__(self, in_channels, dim=64, num_convs=2, kernel_dim=32):
        super().__init__()
        self.mask_convs = _make_stack_3x3_convs(num_convs, in_channels, dim)
        self.projection = nn.Conv2d(dim, kernel_dim, kernel_size=1)

    def forward(self, features):
        # mask features (x4 convs)
        features = self.mask_convs(features)
        return self.projection(features)


class BaseIAMDecoder(nn.Module):

    def __init__(self, num_channels=64, scale_factor=2.0):
        super().__init__()
        # add 2 for coordinates
        in_channels = num_channels + 2
        self.scale_factor = scale_factor
        self.inst_branch = InstanceBranch(in_channels)
        self.mask_branch = MaskBranch(in_channels)

    @torch.no_grad()
    def compute_coordinates(self, x):
        h, w = x.size(2), x.size(3)
        y_loc = torch.linspace(-1, 1, h, device=x.device)
        x_loc = torch.linspace(-1, 1, w, device=x.device)
        y_loc, x_loc = torch.meshgrid(y_loc, x_loc)
        y_loc = y_loc.expand([x.shape[0], 1, -1, -1])
        x_loc = x_loc.expand([x.shape[0], 1, -1, -1])
        locations = torch.cat([x_loc, y_loc], 1)
        return locations.to(x)

    def forward(self, features):
        coord_features = self.compute_coordinates(features)
        features = torch.cat([coord_features, features], dim=1)
        pred_logits, pred_kernel, pred_scores, iam = self.inst_branch(features)
        mask_features = self.mask_branch(features)

        N = pred_kernel.shape[1]
        # mask_features: BxCxHxW
        B, C, H, W = mask_features.shape
        pred_masks = torch.bmm(pred_kernel, mask_features.view(B, C, H * W)).view(B, N, H, W)

        pred_masks = F.interpolate(
            pred_masks, scale_factor=self.scale_factor,
            mode='bilinear', align_corners=False)

        output = {
            "pred_logits": pred_logits,
            "pred_masks": pred_masks,
            "pred_scores": pred_scores,
        }
        return output


class SparseInstDecoderExport(nn.Module):
    """What the export script traces: encoder feature map in, (logits, masks, scores) out."""

    def __init__(self):
        super().__init__()
        self.decoder = BaseIAMDecoder()

    def forward(self, features):
        output = self.decoder(features)
        return output["pred_logits"].sigmoid(), output["pred_masks"].sigmoid(), output["pred_scores"].sigmoid()


def make_model():
    return SparseInstDecoderExport().eval()


def example_inputs():
    return (torch.randn(2, 64, 20, 24),)


def other_inputs():
    return [(torch.randn(1, 64, 32, 16),), (torch.randn(3, 64, 15, 27),)]


def probe_inputs():
    return other_inputs()
