"""CenterPoint head decoding (mmdet3d `CenterHead.get_bboxes` -> `CenterPointBBoxCoder.decode`): `_topk`
does `topk_inds % (height * width)` and divides by `torch.tensor(width, dtype=torch.float)` on the BEV map
size, and `decode` keeps boxes with `mask &= ...` / `cmask &= thresh_mask[i]` and per-sample boolean filtering
`final_box_preds[i, cmask]` against `post_center_range` (turned into a tensor and stored back on the coder).
mmdeploy's end-to-end CenterPoint deployment had to rewrite `decode` (no in-place `&=`, torch.where masking
instead of boolean filtering) to export it; with a dynamic BEV size the size arithmetic in `_topk` fails too.

Source: https://github.com/open-mmlab/mmdeploy/pull/1178
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {2: "bev_h", 3: "bev_w"}}
BLIND = "domains-42"


class CenterPointBBoxCoder:
    def __init__(self, pc_range, out_size_factor, voxel_size, post_center_range=None,
                 max_num=100, score_threshold=None, code_size=9):
        self.pc_range = pc_range
        self.out_size_factor = out_size_factor
        self.voxel_size = voxel_size
        self.post_center_range = post_center_range
        self.max_num = max_num
        self.score_threshold = score_threshold
        self.code_size = code_size

    def _gather_feat(self, feats, inds, feat_masks=None):
        dim = feats.size(2)
        inds = inds.unsqueeze(2).expand(inds.size(0), inds.size(1), dim)
        feats = feats.gather(1, inds)
        if feat_masks is not None:
            feat_masks = feat_masks.unsqueeze(2).expand_as(feats)
            feats = feats[feat_masks]
            feats = feats.view(-1, dim)
        return feats

    def _topk(self, scores, K=80):
        batch, cat, height, width = scores.size()

        topk_scores, topk_inds = torch.topk(scores.view(batch, cat, -1), K)

        topk_inds = topk_inds % (height * width)
        topk_ys = (topk_inds.float() /
                   torch.tensor(width, dtype=torch.float)).int().float()
        topk_xs = (topk_inds % width).int().float()

        topk_score, topk_ind = torch.topk(topk_scores.view(batch, -1), K)
        topk_clses = (topk_ind / torch.tensor(K, dtype=torch.float)).int()
        topk_inds = self._gather_feat(topk_inds.view(batch, -1, 1),
                                      topk_ind).view(batch, K)
        topk_ys = self._gather_feat(topk_ys.view(batch, -1, 1),
                                    topk_ind).view(batch, K)
        topk_xs = self._gather_feat(topk_xs.view(batch, -1, 1),
                                    topk_ind).view(batch, K)

        return topk_score, topk_inds, topk_clses, topk_ys, topk_xs

    def _transpose_and_gather_feat(self, feat, ind):
        feat = feat.permute(0, 2, 3, 1).contiguous()
        feat = feat.view(feat.size(0), -1, feat.size(3))
        feat = self._gather_feat(feat, ind)
        return feat

    def decode(self, heat, rot_sine, rot_cosine, hei, dim, vel, reg=None, task_id=-1):
        batch, cat, _, _ = heat.size()

        scores, inds, clses, ys, xs = self._topk(heat, K=self.max_num)

        if reg is not None:
            reg = self._transpose_and_gather_feat(reg, inds)
            reg = reg.view(batch, self.max_num, 2)
            xs = xs.view(batch, self.max_num, 1) + reg[:, :, 0:1]
            ys = ys.view(batch, self.max_num, 1) + reg[:, :, 1:2]
        else:
            xs = xs.view(batch, self.max_num, 1) + 0.5
            ys = ys.view(batch, self.max_num, 1) + 0.5

        # rotation value and direction label
        rot_sine = self._transpose_and_gather_feat(rot_sine, inds)
        rot_sine = rot_sine.view(batch, self.max_num, 1)

        rot_cosine = self._transpose_and_gather_feat(rot_cosine, inds)
        rot_cosine = rot_cosine.view(batch, self.max_num, 1)
        rot = torch.atan2(rot_sine, rot_cosine)

        # height in the bev
        hei = self._transpose_and_gather_feat(hei, inds)
        hei = hei.view(batch, self.max_num, 1)

        # dim of the box
        dim = self._transpose_and_gather_feat(dim, inds)
        dim = dim.view(batch, self.max_num, 3)

        # class label
        clses = clses.view(batch, self.max_num).float()
        scores = scores.view(batch, self.max_num)

        xs = xs.view(
            batch, self.max_num,
            1) * self.out_size_factor * self.voxel_size[0] + self.pc_range[0]
        ys = ys.view(
            batch, self.max_num,
            1) * self.out_size_factor * self.voxel_size[1] + self.pc_range[1]

        if vel is None:  # KITTI FORMAT
            final_box_preds = torch.cat([xs, ys, hei, dim, rot], dim=2)
        else:  # exist velocity, nuscene format
            vel = self._transpose_and_gather_feat(vel, inds)
            vel = vel.view(batch, self.max_num, 2)
            final_box_preds = torch.cat([xs, ys, hei, dim, rot, vel], dim=2)

        final_scores = scores
        final_preds = clses

        # use score threshold
        if self.score_threshold is not None:
            thresh_mask = final_scores > self.score_threshold

        if self.post_center_range is not None:
            self.post_center_range = torch.tensor(
                self.post_center_range, device=heat.device)
            mask = (final_box_preds[..., :3] >=
                    self.post_center_range[:3]).all(2)
            mask &= (final_box_preds[..., :3] <=
                     self.post_center_range[3:]).all(2)

            predictions_dicts = []
            for i in range(batch):
                cmask = mask[i, :]
                if self.score_threshold:
                    cmask &= thresh_mask[i]

                boxes3d = final_box_preds[i, cmask]
                scores = final_scores[i, cmask]
                labels = final_preds[i, cmask]
                predictions_dict = {
                    'bboxes': boxes3d,
                    'scores': scores,
                    'labels': labels
                }

                predictions_dicts.append(predictions_dict)
        else:
            raise NotImplementedError(
                'Need to reorganize output as a batch, only '
                'support post_center_range is not None for now!')

        return predictions_dicts


class CenterHead(nn.Module):
    """Single-task CenterPoint head: SeparateHead convs + get_bboxes decoding (batch 1 export)."""

    def __init__(self, in_channels=32, num_classes=3):
        super().__init__()
        self.heads = nn.ModuleDict({
            'heatmap': nn.Conv2d(in_channels, num_classes, 3, padding=1),
            'reg': nn.Conv2d(in_channels, 2, 3, padding=1),
            'height': nn.Conv2d(in_channels, 1, 3, padding=1),
            'dim': nn.Conv2d(in_channels, 3, 3, padding=1),
            'rot': nn.Conv2d(in_channels, 2, 3, padding=1),
            'vel': nn.Conv2d(in_channels, 2, 3, padding=1),
        })
        self.norm_bbox = True
        self.bbox_coder = CenterPointBBoxCoder(
            pc_range=[-51.2, -51.2], out_size_factor=4, voxel_size=[0.2, 0.2],
            post_center_range=[-61.2, -61.2, -10.0, 61.2, 61.2, 10.0],
            max_num=100, score_threshold=0.1)

    def forward(self, x):
        preds_dict = {k: head(x) for k, head in self.heads.items()}
        batch_heatmap = preds_dict['heatmap'].sigmoid()
        batch_reg = preds_dict['reg']
        batch_hei = preds_dict['height']
        if self.norm_bbox:
            batch_dim = torch.exp(preds_dict['dim'])
        else:
            batch_dim = preds_dict['dim']
        batch_rots = preds_dict['rot'][:, 0].unsqueeze(1)
        batch_rotc = preds_dict['rot'][:, 1].unsqueeze(1)
        batch_vel = preds_dict['vel']
        temp = self.bbox_coder.decode(batch_heatmap, batch_rots, batch_rotc, batch_hei,
                                      batch_dim, batch_vel, reg=batch_reg, task_id=0)
        return temp[0]['bboxes'], temp[0]['scores'], temp[0]['labels']


def make_model():
    return CenterHead().eval()


def example_inputs():
    return (torch.randn(1, 32, 32, 40),)


def other_inputs():
    return [(torch.randn(1, 32, 24, 48),), (torch.randn(1, 32, 40, 28),)]


def probe_inputs():
    return other_inputs()
