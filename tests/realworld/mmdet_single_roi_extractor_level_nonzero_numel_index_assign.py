"""mmdet v2 `SingleRoIExtractor.forward` (Faster/Mask R-CNN RoI head): RoIs are mapped to FPN levels, and per level
the eager path does `inds = mask.nonzero(as_tuple=False).squeeze(1)`, `if inds.numel() > 0:` RoIAlign on `rois[inds]`
and `roi_feats[inds] = roi_feats_t`, else adds a zero-valued term. The PR "Speed up roi extractor for onnx" keeps a
separate `torch.onnx.is_in_onnx_export()` branch that masks the RoIs instead ("To keep all roi_align nodes exported
to onnx and skip nonzero op"); the eager nonzero/numel/index-assign path is the case. (mmcv RoIAlign is replaced by
a grid_sample stand-in.)

Source: https://github.com/open-mmlab/mmdetection/pull/5194
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"img": {0: "batch", 2: "height", 3: "width"}, "rois": {0: "num_rois"}}
BLIND = "domains-57"


class RoIAlign(nn.Module):
    """Stand-in for mmcv.ops.RoIAlign(output_size, spatial_scale, sampling_ratio=1)."""

    def __init__(self, output_size, spatial_scale):
        super().__init__()
        self.output_size = output_size
        self.spatial_scale = spatial_scale

    def forward(self, input, rois):
        oh, ow = self.output_size
        h, w = input.shape[-2:]
        feats = input[rois[:, 0].long()]
        x1, y1, x2, y2 = [rois[:, k:k + 1] * self.spatial_scale for k in range(1, 5)]
        t_x = (torch.arange(ow, device=rois.device, dtype=rois.dtype) + 0.5) / ow
        t_y = (torch.arange(oh, device=rois.device, dtype=rois.dtype) + 0.5) / oh
        gx = (x1 + (x2 - x1) * t_x) / w * 2 - 1
        gy = (y1 + (y2 - y1) * t_y) / h * 2 - 1
        grid = torch.stack([gx[:, None, :].expand(-1, oh, ow), gy[:, :, None].expand(-1, oh, ow)], dim=-1)
        return F.grid_sample(feats, grid, align_corners=False)


class SingleRoIExtractor(nn.Module):
    def __init__(self, out_channels=8, out_size=(7, 7), featmap_strides=(4, 8, 16, 32), finest_scale=56):
        super().__init__()
        self.out_channels = out_channels
        self.featmap_strides = featmap_strides
        self.finest_scale = finest_scale
        self.roi_layers = nn.ModuleList([RoIAlign(out_size, 1.0 / s) for s in featmap_strides])

    def map_roi_levels(self, rois, num_levels):
        scale = torch.sqrt(
            (rois[:, 3] - rois[:, 1]) * (rois[:, 4] - rois[:, 2]))
        target_lvls = torch.floor(torch.log2(scale / self.finest_scale + 1e-6))
        target_lvls = target_lvls.clamp(min=0, max=num_levels - 1).long()
        return target_lvls

    def forward(self, feats, rois, roi_scale_factor=None):
        """Forward function."""
        out_size = self.roi_layers[0].output_size
        num_levels = len(feats)
        roi_feats = feats[0].new_zeros(
            rois.size(0), self.out_channels, *out_size)

        if num_levels == 1:
            if len(rois) == 0:
                return roi_feats
            return self.roi_layers[0](feats[0], rois)

        target_lvls = self.map_roi_levels(rois, num_levels)

        for i in range(num_levels):
            mask = target_lvls == i
            # (mmdet: `if torch.onnx.is_in_onnx_export(): ... continue` masks the rois here)
            inds = mask.nonzero(as_tuple=False).squeeze(1)
            if inds.numel() > 0:
                rois_ = rois[inds]
                roi_feats_t = self.roi_layers[i](feats[i], rois_)
                roi_feats[inds] = roi_feats_t
            else:
                # Sometimes some pyramid levels will not be used for RoI
                # feature extraction and this will cause an incomplete
                # computation graph in one GPU, which is different from those
                # in other GPUs and will cause a hanging error.
                # Therefore, we add it to ensure each feature pyramid is
                # included in the computation graph to avoid runtime bugs.
                roi_feats += sum(
                    x.view(-1)[0]
                    for x in self.parameters()) * 0. + feats[i].sum() * 0.
        return roi_feats


class RoIBoxHead(nn.Module):
    """Tiny FPN + SingleRoIExtractor + shared fc bbox head."""

    def __init__(self, c=8):
        super().__init__()
        self.stem = nn.Conv2d(3, c, 3, stride=4, padding=1)
        self.downs = nn.ModuleList([nn.Conv2d(c, c, 3, stride=2, padding=1) for _ in range(3)])
        self.bbox_roi_extractor = SingleRoIExtractor(out_channels=c)
        self.fc = nn.Linear(c * 7 * 7, 16)
        self.fc_cls = nn.Linear(16, 5)

    def forward(self, img, rois):
        x = self.stem(img)
        feats = [x]
        for down in self.downs:
            x = down(x)
            feats.append(x)
        bbox_feats = self.bbox_roi_extractor(tuple(feats), rois)
        return self.fc_cls(F.relu(self.fc(bbox_feats.flatten(1))))


def _rois(sizes, batch, h, w):
    rows = []
    for k, s in enumerate(sizes):
        x1 = float((17 * k) % max(1, w - s))
        y1 = float((11 * k) % max(1, h - s))
        rows.append([float(k % batch), x1, y1, min(x1 + s, w - 1.0), min(y1 + s, h - 1.0)])
    return torch.tensor(rows)


def make_model():
    return RoIBoxHead().eval()


def example_inputs():
    # RoIs on every level (scales ~40, ~150, ~300, ~500)
    return (torch.randn(2, 3, 256, 320), _rois([40, 150, 300, 240, 60], 2, 256, 320))


def other_inputs():
    return [
        (torch.randn(1, 3, 320, 256), _rois([30, 50, 130, 20, 45, 90, 70], 1, 320, 256)),  # levels 2/3 unused
        (torch.randn(3, 3, 192, 288), _rois([100, 180], 3, 192, 288)),
    ]


def probe_inputs():
    return other_inputs()
