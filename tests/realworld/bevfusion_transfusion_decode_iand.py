"""BEVFusion (mmdetection3d project, camera+LiDAR 3-D detection) decodes TransFusion proposals with
TransFusionBBoxCoder.decode(filter=True), which builds the center-range mask with `mask &= (...).all(2)` and
`cmask &= thresh_mask[i]`; torch.onnx.export of the model fails with "Exporting the operator 'aten::__iand_' to ONNX
opset version 17 is not supported".

Source: https://github.com/pytorch/pytorch/issues/159072
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"heatmap": {2: "num_proposals"}, "reg": {2: "num_proposals"}}
BLIND = "operators-3"


class TransFusionBBoxCoder:
    """projects/BEVFusion/bevfusion/utils.py, decode() up to the masks (the per-sample boolean gather and the
    list-of-dicts output are left out; the masked boxes are returned as dense tensors)."""

    def __init__(self, pc_range, out_size_factor, voxel_size, post_center_range=None, score_threshold=None,
                 code_size=8):
        self.pc_range = pc_range
        self.out_size_factor = out_size_factor
        self.voxel_size = voxel_size
        self.post_center_range = post_center_range
        self.score_threshold = score_threshold
        self.code_size = code_size

    def decode(self, heatmap, rot, dim, center, height, vel, filter=False):
        # class label
        final_preds = heatmap.max(1, keepdims=False).indices
        final_scores = heatmap.max(1, keepdims=False).values

        # change size to real world metric
        center[:, 0, :] = center[:, 0, :] * self.out_size_factor * self.voxel_size[0] + self.pc_range[0]
        center[:, 1, :] = center[:, 1, :] * self.out_size_factor * self.voxel_size[1] + self.pc_range[1]
        dim[:, 0, :] = dim[:, 0, :].exp()
        dim[:, 1, :] = dim[:, 1, :].exp()
        dim[:, 2, :] = dim[:, 2, :].exp()
        height = height - dim[:, 2:3, :] * 0.5  # gravity center to bottom center
        rots, rotc = rot[:, 0:1, :], rot[:, 1:2, :]
        rot = torch.atan2(rots, rotc)

        if vel is None:
            final_box_preds = torch.cat([center, height, dim, rot], dim=1).permute(0, 2, 1)
        else:
            final_box_preds = torch.cat([center, height, dim, rot, vel], dim=1).permute(0, 2, 1)

        # use score threshold
        if self.score_threshold is not None:
            thresh_mask = final_scores > self.score_threshold

        if self.post_center_range is not None:
            self.post_center_range = torch.tensor(self.post_center_range, device=heatmap.device)
            mask = (final_box_preds[..., :3] >= self.post_center_range[:3]).all(2)
            mask &= (final_box_preds[..., :3] <= self.post_center_range[3:]).all(2)

            for i in range(heatmap.shape[0]):
                cmask = mask[i, :]
                if self.score_threshold:
                    cmask &= thresh_mask[i]
        return final_box_preds, final_scores, final_preds, mask


class TransFusionHeadOutputs(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.bbox_coder = TransFusionBBoxCoder(
            pc_range=[-54.0, -54.0], out_size_factor=8, voxel_size=[0.075, 0.075],
            post_center_range=[-61.2, -61.2, -10.0, 61.2, 61.2, 10.0], score_threshold=0.0, code_size=10)
        self.proj = nn.Conv1d(16, 10, 1)

    def forward(self, heatmap, reg):
        x = self.proj(reg)
        center, height, dim, rot, vel = x[:, 0:2], x[:, 2:3], x[:, 3:6], x[:, 6:8], x[:, 8:10]
        boxes, scores, labels, mask = self.bbox_coder.decode(heatmap.sigmoid(), rot, dim, center, height, vel,
                                                             filter=True)
        return boxes, scores * mask, labels


def make_model():
    return TransFusionHeadOutputs().eval()


def example_inputs():
    return (torch.randn(1, 10, 200), torch.randn(1, 16, 200))


def other_inputs():
    return [(torch.randn(1, 10, 300), torch.randn(1, 16, 300)), (torch.randn(1, 10, 50), torch.randn(1, 16, 50))]


def probe_inputs():
    return other_inputs()
