"""detectron2 Keypoint R-CNN `heatmaps_to_keypoints`: a Python loop over the ROIs with
`outsize = (int(heights_ceil[i]), int(widths_ceil[i]))` feeding a bicubic `F.interpolate`; the
report finds ONNX export of the keypoint model breaks inside this loop and that it must be rewritten.

Source: https://github.com/facebookresearch/detectron2/issues/5255
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"maps": {0: "rois"}, "rois": {0: "rois"}}
BLIND = "domains-5"


def heatmaps_to_keypoints(maps: torch.Tensor, rois: torch.Tensor) -> torch.Tensor:
    maps = maps.detach()
    rois = rois.detach()

    offset_x = rois[:, 0]
    offset_y = rois[:, 1]

    widths = (rois[:, 2] - rois[:, 0]).clamp(min=1)
    heights = (rois[:, 3] - rois[:, 1]).clamp(min=1)
    widths_ceil = widths.ceil()
    heights_ceil = heights.ceil()

    num_rois, num_keypoints = maps.shape[:2]
    xy_preds = maps.new_zeros(rois.shape[0], num_keypoints, 4)

    width_corrections = widths / widths_ceil
    height_corrections = heights / heights_ceil

    keypoints_idx = torch.arange(num_keypoints, device=maps.device)

    for i in range(num_rois):
        outsize = (int(heights_ceil[i]), int(widths_ceil[i]))
        roi_map = F.interpolate(maps[i].unsqueeze(0), size=outsize, mode="bicubic", align_corners=False).squeeze(0)

        max_score, _ = roi_map.view(num_keypoints, -1).max(1)
        max_score = max_score.view(num_keypoints, 1, 1)
        roi_map = roi_map - max_score  # Normalize heatmap for stability
        exp_map = roi_map.exp_()
        score = exp_map / exp_map.view(num_keypoints, -1).sum(1).view(num_keypoints, 1, 1)

        pos = exp_map.view(num_keypoints, -1).argmax(1)
        x_int = pos % outsize[1]
        y_int = pos // outsize[1]

        x = (x_int.float() + 0.5) * width_corrections[i]
        y = (y_int.float() + 0.5) * height_corrections[i]

        xy_preds[i, :, 0] = x + offset_x[i]
        xy_preds[i, :, 1] = y + offset_y[i]
        xy_preds[i, :, 2] = roi_map[keypoints_idx, y_int, x_int]
        xy_preds[i, :, 3] = score[keypoints_idx, y_int, x_int]

    return xy_preds


class KeypointHeadInference(nn.Module):
    def __init__(self, num_keypoints=5):
        super().__init__()
        self.predictor = nn.Conv2d(8, num_keypoints, 3, padding=1)

    def forward(self, maps, rois):
        pred_keypoint_logits = self.predictor(maps)
        return heatmaps_to_keypoints(pred_keypoint_logits, rois)


def _rois(n, seed):
    g = torch.Generator().manual_seed(seed)
    xy = torch.rand(n, 2, generator=g) * 40
    wh = 3 + torch.rand(n, 2, generator=g) * 20
    return torch.cat([xy, xy + wh], dim=1)


def make_model():
    return KeypointHeadInference()


def example_inputs():
    return (torch.randn(3, 8, 7, 7), _rois(3, 0))


def other_inputs():
    return [(torch.randn(5, 8, 7, 7), _rois(5, 1)), (torch.randn(2, 8, 7, 7), _rois(2, 2))]


def probe_inputs():
    return other_inputs()
