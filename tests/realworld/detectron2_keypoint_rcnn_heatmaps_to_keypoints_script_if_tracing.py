"""detectron2 Keypoint R-CNN: the keypoint head upsamples per-ROI heatmaps and decodes them with
`heatmaps_to_keypoints` (decorated `@torch.jit.script_if_tracing`), which loops `for i in range(num_rois)`,
resizes each map to `(int(heights_ceil[i]), int(widths_ceil[i]))` taken from the box values and asserts on
the argmax; exporting the Keypoint R-CNN with tools/deploy/export_model.py fails while Mask/Faster R-CNN work.

Source: https://github.com/facebookresearch/detectron2/issues/5143
"""
import torch
from torch import nn
from torch.nn import functional as F

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "num_rois"}, "rois": {0: "num_rois"}}
BLIND = "domains-31"


@torch.jit.script_if_tracing
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
        roi_map = F.interpolate(maps[[i]], size=outsize, mode="bicubic", align_corners=False).squeeze(0)

        # softmax over the spatial region
        max_score, _ = roi_map.view(num_keypoints, -1).max(1)
        max_score = max_score.view(num_keypoints, 1, 1)
        tmp_full_resolution = (roi_map - max_score).exp_()
        tmp_pool_resolution = (maps[i] - max_score).exp_()
        roi_map_scores = tmp_full_resolution / tmp_pool_resolution.sum((1, 2), keepdim=True)

        w = roi_map.shape[2]
        pos = roi_map.view(num_keypoints, -1).argmax(1)

        x_int = pos % w
        y_int = (pos - x_int) // w

        assert (
            roi_map_scores[keypoints_idx, y_int, x_int]
            == roi_map_scores.view(num_keypoints, -1).max(1)[0]
        ).all()

        x = (x_int.float() + 0.5) * width_corrections[i]
        y = (y_int.float() + 0.5) * height_corrections[i]

        xy_preds[i, :, 0] = x + offset_x[i]
        xy_preds[i, :, 1] = y + offset_y[i]
        xy_preds[i, :, 2] = roi_map[keypoints_idx, y_int, x_int]
        xy_preds[i, :, 3] = roi_map_scores[keypoints_idx, y_int, x_int]

    return xy_preds


class KRCNNConvDeconvUpsampleHead(nn.Module):
    def __init__(self, in_channels=16, num_keypoints=4, conv_dims=(16, 16), up_scale=2):
        super().__init__()
        self.up_scale = up_scale
        layers = []
        for d in conv_dims:
            layers += [nn.Conv2d(in_channels, d, 3, padding=1), nn.ReLU()]
            in_channels = d
        self.convs = nn.Sequential(*layers)
        self.score_lowres = nn.ConvTranspose2d(in_channels, num_keypoints, 4, stride=2, padding=1)

    def forward(self, x, rois):
        x = self.score_lowres(self.convs(x))
        x = F.interpolate(x, scale_factor=self.up_scale, mode="bilinear", align_corners=False)
        return heatmaps_to_keypoints(x, rois)


def make_model():
    return KRCNNConvDeconvUpsampleHead()


def _rois(n, seed):
    g = torch.Generator().manual_seed(seed)
    xy = torch.rand(n, 2, generator=g) * 40
    wh = 8 + torch.rand(n, 2, generator=g) * 40
    return torch.cat([xy, xy + wh], 1)


def example_inputs():
    return (torch.randn(3, 16, 7, 7), _rois(3, 0))


def other_inputs():
    return [(torch.randn(5, 16, 7, 7), _rois(5, 1)), (torch.randn(2, 16, 7, 7), _rois(2, 2))]


def probe_inputs():
    return other_inputs()
