"""MMPose RTMO (one-stage multi-person pose): `RTMOHead.predict` rebuilds the point priors only
`if featmap_sizes != self.featmap_sizes` and keeps them in `self.mlvl_priors`, then builds the
strides with `flatten_priors.new_full((featmap_size.numel(), ), stride)`; MMDeploy had to rewrite
the RTMO head's inference to export it (and mmpose's `switch_to_deploy` precomputes the priors
for one fixed `input_size`), because the cached, size-keyed priors do not follow other input sizes.

Source: https://github.com/open-mmlab/mmdeploy/pull/2597
"""
from typing import List

import torch
from torch import Tensor, nn

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-41"


class MlvlPointGenerator:
    """mmdet's point prior generator (the lines RTMO uses)."""

    def __init__(self, strides, offset=0.):
        self.strides = [(s, s) for s in strides]
        self.offset = offset

    @property
    def num_levels(self):
        return len(self.strides)

    def _meshgrid(self, x, y, row_major=True):
        yy, xx = torch.meshgrid(y, x, indexing='ij')
        return xx.reshape(-1), yy.reshape(-1)

    def grid_priors(self, featmap_sizes, dtype=torch.float32, device='cuda', with_stride=False):
        multi_level_priors = []
        for i in range(self.num_levels):
            priors = self.single_level_grid_priors(
                featmap_sizes[i], level_idx=i, dtype=dtype, device=device, with_stride=with_stride)
            multi_level_priors.append(priors)
        return multi_level_priors

    def single_level_grid_priors(self, featmap_size, level_idx, dtype=torch.float32, device='cuda',
                                 with_stride=False):
        feat_h, feat_w = featmap_size
        stride_w, stride_h = self.strides[level_idx]
        shift_x = (torch.arange(0, feat_w, device=device) + self.offset) * stride_w
        shift_x = shift_x.to(dtype)
        shift_y = (torch.arange(0, feat_h, device=device) + self.offset) * stride_h
        shift_y = shift_y.to(dtype)
        shift_xx, shift_yy = self._meshgrid(shift_x, shift_y)
        shifts = torch.stack([shift_xx, shift_yy], dim=-1)
        return shifts.to(device)


class RTMOHead(nn.Module):
    def __init__(self, in_channels=16, featmap_strides=[16, 32]):
        super().__init__()
        self.featmap_strides = featmap_strides
        self.prior_generator = MlvlPointGenerator(featmap_strides, offset=0)
        self.featmap_sizes = None
        self.mlvl_priors = None
        self.cls = nn.ModuleList([nn.Conv2d(in_channels, 1, 1) for _ in featmap_strides])
        self.reg = nn.ModuleList([nn.Conv2d(in_channels, 4, 1) for _ in featmap_strides])

    def _flatten_predictions(self, preds: List[Tensor]):
        if len(preds) == 0:
            return None
        preds = [x.permute(0, 2, 3, 1).flatten(1, 2) for x in preds]
        return torch.cat(preds, dim=1)

    def decode_bbox(self, pred_bboxes, priors, stride):
        stride = stride.view(1, stride.size(0), 1)
        priors = priors.view(1, priors.size(0), 2)
        xys = (pred_bboxes[..., :2] * stride) + priors
        whs = pred_bboxes[..., 2:].exp() * stride
        tl_x = xys[..., 0] - whs[..., 0] / 2
        tl_y = xys[..., 1] - whs[..., 1] / 2
        br_x = xys[..., 0] + whs[..., 0] / 2
        br_y = xys[..., 1] + whs[..., 1] / 2
        return torch.stack([tl_x, tl_y, br_x, br_y], -1)

    def forward(self, feats):
        cls_scores = [conv(f) for conv, f in zip(self.cls, feats)]
        bbox_preds = [conv(f) for conv, f in zip(self.reg, feats)]

        featmap_sizes = [cls_score.shape[2:] for cls_score in cls_scores]

        # If the shape does not change, use the previous mlvl_priors
        if featmap_sizes != self.featmap_sizes:
            self.mlvl_priors = self.prior_generator.grid_priors(
                featmap_sizes,
                dtype=cls_scores[0].dtype,
                device=cls_scores[0].device)
            self.featmap_sizes = featmap_sizes
        flatten_priors = torch.cat(self.mlvl_priors)

        mlvl_strides = [
            flatten_priors.new_full((featmap_size.numel(), ),
                                    stride) for featmap_size, stride in zip(
                                        featmap_sizes, self.featmap_strides)
        ]
        flatten_stride = torch.cat(mlvl_strides)

        flatten_cls_scores = self._flatten_predictions(cls_scores).sigmoid()
        flatten_bbox_preds = self._flatten_predictions(bbox_preds)
        flatten_bbox_preds = self.decode_bbox(flatten_bbox_preds, flatten_priors, flatten_stride)
        return flatten_cls_scores, flatten_bbox_preds


class RTMO(nn.Module):
    """Backbone/neck stand-in (CSPDarknet + HybridEncoder) giving stride-16 and stride-32 maps."""

    def __init__(self, ch=16):
        super().__init__()
        self.stem = nn.Sequential(*[nn.Sequential(nn.Conv2d(3 if i == 0 else ch, ch, 3, 2, 1), nn.ReLU())
                                    for i in range(4)])
        self.down = nn.Conv2d(ch, ch, 3, 2, 1)
        self.head = RTMOHead(ch)

    def forward(self, x):
        f16 = self.stem(x)
        f32 = self.down(f16)
        return self.head([f16, f32])


def make_model():
    return RTMO().eval()


def example_inputs():
    return (torch.randn(1, 3, 128, 192),)


def other_inputs():
    return [(torch.randn(2, 3, 192, 128),), (torch.randn(1, 3, 160, 96),)]


def probe_inputs():
    return other_inputs()
