"""docTR DBNet text detector: before the ONNX-export PR, `forward` (with no target) always post-processes the
probability map in NumPy, `self.postprocessor(prob_map.detach().cpu().permute((0, 2, 3, 1)).numpy())`, and
returns the resulting per-image box arrays under "preds"; the PR adds an `exportable` flag returning only the
logits so the model can be exported. (Backbone reduced to three conv stages; the OpenCV contour search of
`bitmap_to_boxes` replaced by one NumPy bounding box per page; `box_score` kept.)

Source: https://github.com/mindee/doctr/pull/979
"""
from typing import Any, Dict, List, Optional

import numpy as np
import torch
from torch import nn

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-46"


class DBPostProcessor:
    def __init__(self, box_thresh: float = 0.1, bin_thresh: float = 0.3, assume_straight_pages: bool = True) -> None:
        self.box_thresh = box_thresh
        self.bin_thresh = bin_thresh
        self.assume_straight_pages = assume_straight_pages

    @staticmethod
    def box_score(pred: np.ndarray, points: np.ndarray, assume_straight_pages: bool = True) -> float:
        h, w = pred.shape[:2]
        xmin = np.clip(np.floor(points[:, 0].min()).astype(np.int32), 0, w - 1)
        xmax = np.clip(np.ceil(points[:, 0].max()).astype(np.int32), 0, w - 1)
        ymin = np.clip(np.floor(points[:, 1].min()).astype(np.int32), 0, h - 1)
        ymax = np.clip(np.ceil(points[:, 1].max()).astype(np.int32), 0, h - 1)
        return pred[ymin:ymax + 1, xmin:xmax + 1].mean()

    def bitmap_to_boxes(self, pred: np.ndarray, bitmap: np.ndarray) -> np.ndarray:
        height, width = bitmap.shape[:2]
        boxes: List[List[float]] = []
        ys, xs = np.nonzero(bitmap)
        if len(xs) > 0:
            x, y, w, h = xs.min(), ys.min(), xs.max() - xs.min() + 1, ys.max() - ys.min() + 1
            points: np.ndarray = np.array([[x, y], [x, y + h], [x + w, y + h], [x + w, y]])
            score = self.box_score(pred, points, assume_straight_pages=True)
            if score >= self.box_thresh:
                xmin, ymin, xmax, ymax = x / width, y / height, (x + w) / width, (y + h) / height
                boxes.append([xmin, ymin, xmax, ymax, score])
        return np.clip(np.asarray(boxes, dtype=np.float32), 0, 1) if len(boxes) > 0 else np.zeros((0, 5), np.float32)

    def __call__(self, proba_map) -> List[List[np.ndarray]]:
        if proba_map.ndim != 4:
            raise AssertionError(f"arg `proba_map` is expected to be 4-dimensional, got {proba_map.ndim}.")
        bin_map = [[bmap[..., idx] for idx in range(proba_map.shape[-1])]
                   for bmap in (proba_map >= self.bin_thresh).astype(np.uint8)]
        return [
            [self.bitmap_to_boxes(pmaps[..., idx], bmaps[idx]) for idx in range(proba_map.shape[-1])]
            for pmaps, bmaps in zip(proba_map, bin_map)
        ]


class FeaturePyramidNetwork(nn.Module):
    def __init__(self, in_channels: List[int], out_channels: int) -> None:
        super().__init__()
        out_chans = out_channels // len(in_channels)
        self.in_branches = nn.ModuleList([
            nn.Sequential(nn.Conv2d(chans, out_channels, 1, bias=False), nn.BatchNorm2d(out_channels), nn.ReLU(inplace=True))
            for idx, chans in enumerate(in_channels)
        ])
        self.upsample = nn.Upsample(scale_factor=2, mode='bilinear', align_corners=True)
        self.out_branches = nn.ModuleList([
            nn.Sequential(
                nn.Conv2d(out_channels, out_chans, 3, padding=1, bias=False), nn.BatchNorm2d(out_chans),
                nn.ReLU(inplace=True), nn.Upsample(scale_factor=2 ** idx, mode='bilinear', align_corners=True),
            ) for idx, chans in enumerate(in_channels)
        ])

    def forward(self, x: List[torch.Tensor]) -> torch.Tensor:
        if len(x) != len(self.out_branches):
            raise AssertionError
        _x: List[torch.Tensor] = [branch(t) for branch, t in zip(self.in_branches, x)]
        out: List[torch.Tensor] = [_x[-1]]
        for t in _x[:-1][::-1]:
            out.append(self.upsample(out[-1]) + t)
        out = [branch(t) for branch, t in zip(self.out_branches, out[::-1])]
        return torch.cat(out, dim=1)


class DBNet(nn.Module):
    def __init__(self, head_chans: int = 24, num_classes: int = 1, assume_straight_pages: bool = True) -> None:
        super().__init__()
        self.assume_straight_pages = assume_straight_pages
        chans = [8, 16, 32]
        self.stages = nn.ModuleList([
            nn.Sequential(nn.Conv2d(3 if i == 0 else chans[i - 1], c, 3, stride=4 if i == 0 else 2, padding=1), nn.ReLU())
            for i, c in enumerate(chans)
        ])
        self.fpn = FeaturePyramidNetwork(chans, head_chans)
        self.prob_head = nn.Sequential(
            nn.Conv2d(head_chans, head_chans // 4, 3, padding=1, bias=False),
            nn.BatchNorm2d(head_chans // 4),
            nn.ReLU(inplace=True),
            nn.ConvTranspose2d(head_chans // 4, head_chans // 4, 2, stride=2, bias=False),
            nn.BatchNorm2d(head_chans // 4),
            nn.ReLU(inplace=True),
            nn.ConvTranspose2d(head_chans // 4, num_classes, 2, stride=2),
        )
        self.postprocessor = DBPostProcessor(assume_straight_pages=assume_straight_pages)

    def feat_extractor(self, x):
        feats = {}
        for idx, stage in enumerate(self.stages):
            x = stage(x)
            feats[str(idx)] = x
        return feats

    def forward(
        self,
        x: torch.Tensor,
        target: Optional[List[np.ndarray]] = None,
        return_model_output: bool = False,
        return_preds: bool = False,
    ) -> Dict[str, torch.Tensor]:
        # Extract feature maps at different stages
        feats = self.feat_extractor(x)
        feats = [feats[str(idx)] for idx in range(len(feats))]
        # Pass through the FPN
        feat_concat = self.fpn(feats)
        logits = self.prob_head(feat_concat)

        out: Dict[str, Any] = {}
        if return_model_output or target is None or return_preds:
            prob_map = torch.sigmoid(logits)

        if return_model_output:
            out["out_map"] = prob_map

        if target is None or return_preds:
            # Post-process boxes (keep only text predictions)
            out["preds"] = [
                preds[0] for preds in self.postprocessor(prob_map.detach().cpu().permute((0, 2, 3, 1)).numpy())
            ]

        return out


def make_model():
    return DBNet().eval()


def example_inputs():
    return (torch.rand(2, 3, 64, 96),)


def other_inputs():
    return [(torch.rand(3, 3, 96, 64),), (torch.rand(1, 3, 128, 160),)]


def probe_inputs():
    return other_inputs()
