"""super-gradients YOLO-NAS `NDFLHeads.forward_eval`, run in half precision: without a cached eval_size the
anchors are rebuilt every call by `_generate_anchors`, which creates the grid with
`torch.arange(end=w, dtype=dtype)` where dtype is the feature dtype (float16). PR #1444 ("Fix YoloNAS on cuda")
replaces it with a float32 arange cast afterwards, commenting "ONNX export does not support arange with float16":
the exported Range node gets float16 inputs, which onnxruntime rejects when loading the model.

Source: https://github.com/Deci-AI/super-gradients/pull/1444
"""
import torch
from torch import nn, Tensor

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {
    "p3": {0: "batch", 2: "h8", 3: "w8"},
    "p4": {0: "batch", 2: "h16", 3: "w16"},
    "p5": {0: "batch", 2: "h32", 3: "w32"},
}
BLIND = "domains-86"


def batch_distance2bbox(points: Tensor, distance: Tensor) -> Tensor:
    lt, rb = torch.split(distance, 2, dim=-1)
    # while tensor add parameters, parameters should be better placed on the second place
    x1y1 = -lt + points
    x2y2 = rb + points
    return torch.cat([x1y1, x2y2], dim=-1)


class YoloNASDFLHead(nn.Module):
    def __init__(self, in_channels, num_classes, reg_max, stride):
        super().__init__()
        self.stride = stride
        self.stem = nn.Sequential(nn.Conv2d(in_channels, in_channels, 1), nn.ReLU())
        self.cls_pred = nn.Conv2d(in_channels, num_classes, 1)
        self.reg_pred = nn.Conv2d(in_channels, 4 * (reg_max + 1), 1)

    def forward(self, x):
        x = self.stem(x)
        return self.reg_pred(x), self.cls_pred(x)


class NDFLHeads(nn.Module):
    def __init__(self, num_classes=4, in_channels=(16, 24, 32), grid_cell_offset=0.5, reg_max=16, eval_size=None):
        super().__init__()
        self.num_classes = num_classes
        self.grid_cell_offset = grid_cell_offset
        self.reg_max = reg_max
        self.eval_size = eval_size
        proj = torch.linspace(0, self.reg_max, self.reg_max + 1).reshape([1, self.reg_max + 1, 1, 1])
        self.register_buffer("proj_conv", proj, persistent=False)
        self.num_heads = len(in_channels)
        fpn_strides = []
        for i, stride in enumerate((8, 16, 32)):
            new_head = YoloNASDFLHead(in_channels[i], num_classes, reg_max, stride)
            fpn_strides.append(new_head.stride)
            setattr(self, f"head{i + 1}", new_head)
        self.fpn_strides = tuple(fpn_strides)

    def forward_eval(self, feats):
        feats = feats[: self.num_heads]
        cls_score_list, reg_dist_reduced_list = [], []
        for i, feat in enumerate(feats):
            b, _, h, w = feat.shape
            height_mul_width = h * w
            reg_distri, cls_logit = getattr(self, f"head{i + 1}")(feat)
            reg_dist_reduced = torch.permute(reg_distri.reshape([-1, 4, self.reg_max + 1, height_mul_width]), [0, 2, 3, 1])
            reg_dist_reduced = torch.nn.functional.conv2d(torch.nn.functional.softmax(reg_dist_reduced, dim=1), weight=self.proj_conv).squeeze(1)
            cls_score_list.append(cls_logit.reshape([b, self.num_classes, height_mul_width]))
            reg_dist_reduced_list.append(reg_dist_reduced)

        cls_score_list = torch.permute(torch.cat(cls_score_list, dim=-1), [0, 2, 1])  # [B, Anchors, C]
        reg_dist_reduced_list = torch.cat(reg_dist_reduced_list, dim=1)  # [B, Anchors, 4]

        if self.eval_size:
            anchor_points_inference, stride_tensor = self.anchor_points, self.stride_tensor
        else:
            anchor_points_inference, stride_tensor = self._generate_anchors(feats)

        pred_scores = cls_score_list.sigmoid()
        pred_bboxes = batch_distance2bbox(anchor_points_inference, reg_dist_reduced_list) * stride_tensor  # [B, Anchors, 4]
        return pred_bboxes, pred_scores

    def forward(self, p3, p4, p5):
        return self.forward_eval((p3, p4, p5))

    def _generate_anchors(self, feats=None, dtype=None, device=None):
        # just use in eval time
        anchor_points = []
        stride_tensor = []

        dtype = dtype or feats[0].dtype
        device = device or feats[0].device

        for i, stride in enumerate(self.fpn_strides):
            if feats is not None:
                _, _, h, w = feats[i].shape
            else:
                h = int(self.eval_size[0] / stride)
                w = int(self.eval_size[1] / stride)

            shift_x = torch.arange(end=w, dtype=dtype) + self.grid_cell_offset
            shift_y = torch.arange(end=h, dtype=dtype) + self.grid_cell_offset

            shift_y, shift_x = torch.meshgrid(shift_y, shift_x, indexing="ij")

            anchor_point = torch.stack([shift_x, shift_y], dim=-1).to(dtype=dtype)
            anchor_points.append(anchor_point.reshape([-1, 2]))
            stride_tensor.append(torch.full([h * w, 1], stride, dtype=dtype))
        anchor_points = torch.cat(anchor_points)
        stride_tensor = torch.cat(stride_tensor)

        if device is not None:
            anchor_points = anchor_points.to(device)
            stride_tensor = stride_tensor.to(device)
        return anchor_points, stride_tensor


def make_model():
    return NDFLHeads().half().eval()   # model.half() for fp16 deployment


def _feats(b, h, w):
    return (torch.randn(b, 16, h // 8, w // 8).half(),
            torch.randn(b, 24, h // 16, w // 16).half(),
            torch.randn(b, 32, h // 32, w // 32).half())


def example_inputs():
    return _feats(2, 256, 320)


def other_inputs():
    return [_feats(1, 320, 192), _feats(3, 192, 256)]


def probe_inputs():
    return other_inputs()
