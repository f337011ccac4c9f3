"""CenterNet2 (Detic's third_party copy) proposal decoding: `predict_single_level` clamps the per-image
candidate count to `pre_nms_topk` and then branches with `if per_candidate_inds.sum().item() >
per_pre_nms_top_n.item():` before `per_box_cls.topk(per_pre_nms_top_n)`; `forward` also builds
`shapes_per_level = grids[0].new_tensor([(x.shape[2], x.shape[3]) for x in reg_pred_per_level])`. The ailia
port of Detic had to rewrite both places (and the `.item()` branch) to export the detector to ONNX.

Source: https://github.com/ailia-ai/ailia-models/issues/695
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "control_flow"
DYNAMIC = {"x": {2: "height", 3: "width"}}
BLIND = "domains-40"


class CenterNetHead(nn.Module):
    def __init__(self, in_channels=8, num_levels=2):
        super().__init__()
        self.cls_tower = nn.Conv2d(in_channels, in_channels, 3, padding=1)
        self.bbox_tower = nn.Conv2d(in_channels, in_channels, 3, padding=1)
        self.agn_hm = nn.Conv2d(in_channels, 1, 3, padding=1)
        self.bbox_pred = nn.Conv2d(in_channels, 4, 3, padding=1)
        self.scales = nn.Parameter(torch.ones(num_levels))

    def forward(self, x):
        clss, bbox_reg, agn_hms = [], [], []
        for l, feature in enumerate(x):
            bbox_tower = torch.relu(self.bbox_tower(feature))
            clss.append(None)
            agn_hms.append(self.agn_hm(bbox_tower))
            reg = self.bbox_pred(bbox_tower) * self.scales[l]
            bbox_reg.append(torch.relu(reg))
        return clss, bbox_reg, agn_hms


class CenterNet(nn.Module):
    def __init__(self, in_channels=8, strides=(8, 16)):
        super().__init__()
        self.strides = strides
        self.stem = nn.Conv2d(3, in_channels, 3, stride=8, padding=1)
        self.down = nn.Conv2d(in_channels, in_channels, 3, stride=2, padding=1)
        self.centernet_head = CenterNetHead(in_channels, len(strides))
        self.score_thresh = 0.3
        self.pre_nms_topk_test = 24
        self.pre_nms_topk_train = 4000
        self.center_nms = False
        self.with_agn_hm = True

    def compute_grids(self, features):
        grids = []
        for level, feature in enumerate(features):
            h, w = feature.size()[-2:]
            shifts_x = torch.arange(
                0, w * self.strides[level],
                step=self.strides[level],
                dtype=torch.float32, device=feature.device)
            shifts_y = torch.arange(
                0, h * self.strides[level],
                step=self.strides[level],
                dtype=torch.float32, device=feature.device)
            shift_y, shift_x = torch.meshgrid(shifts_y, shifts_x, indexing="ij")
            shift_x = shift_x.reshape(-1)
            shift_y = shift_y.reshape(-1)
            grids_per_level = torch.stack((shift_x, shift_y), dim=1) + \
                self.strides[level] // 2
            grids.append(grids_per_level)
        return grids

    def predict_single_level(self, grids, heatmap, reg_pred, agn_hm, level):
        N, C, H, W = heatmap.shape
        heatmap = heatmap.permute(0, 2, 3, 1)  # N x H x W x C
        heatmap = heatmap.reshape(N, -1, C)  # N x HW x C
        box_regression = reg_pred.view(N, 4, H, W).permute(0, 2, 3, 1)  # N x H x W x 4
        box_regression = box_regression.reshape(N, -1, 4)

        candidate_inds = heatmap > self.score_thresh  # 0.05
        pre_nms_top_n = candidate_inds.view(N, -1).sum(1)  # N
        pre_nms_topk = self.pre_nms_topk_train if self.training else self.pre_nms_topk_test
        pre_nms_top_n = pre_nms_top_n.clamp(max=pre_nms_topk)  # N

        results = []
        for i in range(N):
            per_box_cls = heatmap[i]  # HW x C
            per_candidate_inds = candidate_inds[i]  # n
            per_box_cls = per_box_cls[per_candidate_inds]  # n

            per_candidate_nonzeros = per_candidate_inds.nonzero()  # n
            per_box_loc = per_candidate_nonzeros[:, 0]  # n
            per_class = per_candidate_nonzeros[:, 1]  # n

            per_box_regression = box_regression[i]  # HW x 4
            per_box_regression = per_box_regression[per_box_loc]  # n x 4
            per_grids = grids[per_box_loc]  # n x 2

            per_pre_nms_top_n = pre_nms_top_n[i]  # 1

            if per_candidate_inds.sum().item() > per_pre_nms_top_n.item():
                per_box_cls, top_k_indices = \
                    per_box_cls.topk(per_pre_nms_top_n, sorted=False)
                per_class = per_class[top_k_indices]
                per_box_regression = per_box_regression[top_k_indices]
                per_grids = per_grids[top_k_indices]

            detections = torch.stack([
                per_grids[:, 0] - per_box_regression[:, 0],
                per_grids[:, 1] - per_box_regression[:, 1],
                per_grids[:, 0] + per_box_regression[:, 2],
                per_grids[:, 1] + per_box_regression[:, 3],
            ], dim=1)  # n x 4
            scores = torch.sqrt(per_box_cls) if self.with_agn_hm else per_box_cls  # n
            results.append((detections, scores, per_class))
        return results

    def forward(self, x):
        p3 = torch.relu(self.stem(x))
        features = [p3, torch.relu(self.down(p3))]
        clss_per_level, reg_pred_per_level, agn_hm_pred_per_level = \
            self.centernet_head(features)
        grids = self.compute_grids(features)
        shapes_per_level = grids[0].new_tensor(
            [(x.shape[2], x.shape[3]) for x in reg_pred_per_level])
        agn_hm_pred_per_level = [x.sigmoid() for x in agn_hm_pred_per_level]
        boxes, scores, classes = [], [], []
        for l in range(len(grids)):
            per_level = self.predict_single_level(
                grids[l], agn_hm_pred_per_level[l], reg_pred_per_level[l] * self.strides[l],
                None, l)
            boxes.append(per_level[0][0])
            scores.append(per_level[0][1])
            classes.append(per_level[0][2])
        return torch.cat(boxes), torch.cat(scores), torch.cat(classes)


def make_model():
    return CenterNet().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 96),)


def other_inputs():
    return [(torch.randn(1, 3, 160, 128),), (torch.randn(1, 3, 96, 256),)]


def probe_inputs():
    return other_inputs()
