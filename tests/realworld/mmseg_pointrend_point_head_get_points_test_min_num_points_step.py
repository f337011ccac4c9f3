"""mmsegmentation PointRend PointHead.forward_test: each subdivision step upsamples the logits and calls
`get_points_test`, which takes `h_step = 1.0 / height`, `num_points = min(height * width, num_points)` and
`uncertainty_map.topk(num_points, dim=1)` on the upsampled map's Python sizes, then scatters the refined point
logits back; mmdeploy's "Fix mmseg pointrend" PR has to rewrite `get_points_test` (and mmcv's point_sample) to
deploy PointRend.

Source: https://github.com/open-mmlab/mmdeploy/pull/903
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"img": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-44"


class ConfigDict(dict):
    def __getattr__(self, name):
        return self[name]


def resize(input, size=None, scale_factor=None, mode='nearest', align_corners=None, warning=True):
    return F.interpolate(input, size, scale_factor, mode, align_corners)


def denormalize(grid):
    """Denormalize input grid from range [0, 1] to [-1, 1]."""
    return grid * 2.0 - 1.0


def point_sample(input, points, align_corners=False, **kwargs):
    add_dim = False
    if points.dim() == 3:
        add_dim = True
        points = points.unsqueeze(2)
    output = F.grid_sample(
        input, denormalize(points), align_corners=align_corners, **kwargs)
    if add_dim:
        output = output.squeeze(3)
    return output


def calculate_uncertainty(seg_logits):
    top2_scores = torch.topk(seg_logits, k=2, dim=1)[0]
    return (top2_scores[:, 1] - top2_scores[:, 0]).unsqueeze(1)


class PointHead(nn.Module):

    def __init__(self, in_channels=16, num_classes=4, num_fcs=3, fc_channels=32,
                 coarse_pred_each_layer=True):
        super().__init__()
        self.align_corners = False
        self.coarse_pred_each_layer = coarse_pred_each_layer
        fc_in_channels = in_channels + num_classes
        self.fcs = nn.ModuleList()
        for k in range(num_fcs):
            self.fcs.append(nn.Sequential(nn.Conv1d(fc_in_channels, fc_channels, 1), nn.ReLU()))
            fc_in_channels = fc_channels
            fc_in_channels += num_classes if self.coarse_pred_each_layer else 0
        self.conv_seg = nn.Conv1d(fc_in_channels, num_classes, 1)

    def cls_seg(self, feat):
        return self.conv_seg(feat)

    def forward(self, fine_grained_point_feats, coarse_point_feats):
        x = torch.cat([fine_grained_point_feats, coarse_point_feats], dim=1)
        for fc in self.fcs:
            x = fc(x)
            if self.coarse_pred_each_layer:
                x = torch.cat((x, coarse_point_feats), dim=1)
        return self.cls_seg(x)

    def _get_fine_grained_point_feats(self, x, points):
        fine_grained_feats_list = [
            point_sample(_, points, align_corners=self.align_corners)
            for _ in x
        ]
        if len(fine_grained_feats_list) > 1:
            fine_grained_feats = torch.cat(fine_grained_feats_list, dim=1)
        else:
            fine_grained_feats = fine_grained_feats_list[0]
        return fine_grained_feats

    def _get_coarse_point_feats(self, prev_output, points):
        coarse_feats = point_sample(
            prev_output, points, align_corners=self.align_corners)
        return coarse_feats

    def forward_test(self, inputs, prev_output, img_metas, test_cfg):
        x = inputs
        refined_seg_logits = prev_output.clone()
        for _ in range(test_cfg.subdivision_steps):
            refined_seg_logits = resize(
                refined_seg_logits,
                scale_factor=test_cfg.scale_factor,
                mode='bilinear',
                align_corners=self.align_corners)
            batch_size, channels, height, width = refined_seg_logits.shape
            point_indices, points = self.get_points_test(
                refined_seg_logits, calculate_uncertainty, test_cfg)
            fine_grained_point_feats = self._get_fine_grained_point_feats(
                x, points)
            coarse_point_feats = self._get_coarse_point_feats(
                prev_output, points)
            point_logits = self.forward(fine_grained_point_feats,
                                        coarse_point_feats)

            point_indices = point_indices.unsqueeze(1).expand(-1, channels, -1)
            refined_seg_logits = refined_seg_logits.reshape(
                batch_size, channels, height * width)
            refined_seg_logits = refined_seg_logits.scatter_(
                2, point_indices, point_logits)
            refined_seg_logits = refined_seg_logits.view(
                batch_size, channels, height, width)

        return refined_seg_logits

    def get_points_test(self, seg_logits, uncertainty_func, cfg):
        num_points = cfg.subdivision_num_points
        uncertainty_map = uncertainty_func(seg_logits)
        batch_size, _, height, width = uncertainty_map.shape
        h_step = 1.0 / height
        w_step = 1.0 / width

        uncertainty_map = uncertainty_map.view(batch_size, height * width)
        num_points = min(height * width, num_points)
        point_indices = uncertainty_map.topk(num_points, dim=1)[1]
        point_coords = torch.zeros(
            batch_size,
            num_points,
            2,
            dtype=torch.float,
            device=seg_logits.device)
        point_coords[:, :, 0] = w_step / 2.0 + (point_indices %
                                                width).float() * w_step
        point_coords[:, :, 1] = h_step / 2.0 + (point_indices //
                                                width).float() * h_step
        return point_indices, point_coords


class PointRend(nn.Module):
    """CascadeEncoderDecoder (whole inference): backbone/neck -> coarse FPN head -> PointHead."""

    def __init__(self, num_classes=4):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.ReLU(), nn.Conv2d(16, 16, 3, 2, 1), nn.ReLU())
        self.coarse_head = nn.Conv2d(16, num_classes, 1)
        self.point_head = PointHead(in_channels=16, num_classes=num_classes)
        self.test_cfg = ConfigDict(mode='whole', subdivision_steps=2, subdivision_num_points=8196,
                                   scale_factor=2)

    def forward(self, img):
        x = [self.backbone(img)]
        out = self.coarse_head(x[0])
        out = self.point_head.forward_test(x, out, None, self.test_cfg)
        out = resize(input=out, size=img.shape[2:], mode='bilinear', align_corners=False)
        return out


def make_model():
    return PointRend().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(1, 3, 128, 96),), (torch.randn(3, 3, 48, 80),)]


def probe_inputs():
    return other_inputs()
