"""yolort AnchorGenerator (yolort/models/anchor_utils.py): `grid_anchors` builds the YOLOv5 anchor
grid with `torch.arange(0, grid_width, dtype=dtype, ...)` where `dtype` is the feature map dtype;
with a half-precision model the report says "torch.arange cannot export to onnx with fp16 precision",
and the fix forces the arange to fp32 and casts the result to `dtype` afterwards.

Source: https://github.com/zhiqwang/yolort/pull/113
"""
import torch
from torch import nn, Tensor
from typing import Tuple, List

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-50"


class AnchorGenerator(nn.Module):

    def __init__(
        self,
        strides: List[int],
        anchor_grids: List[List[int]],
    ):
        super().__init__()
        assert len(strides) == len(anchor_grids)
        self.num_anchors = len(anchor_grids)
        self.strides = strides
        self.anchor_grids = anchor_grids

    def set_wh_weights(
        self,
        grid_sizes: List[List[int]],
        dtype: torch.dtype = torch.float32,
        device: torch.device = torch.device("cpu"),
    ) -> Tensor:

        wh_weights = []

        for size, stride in zip(grid_sizes, self.strides):
            grid_height, grid_width = size
            stride = torch.as_tensor([stride], dtype=dtype, device=device)
            stride = stride.view(-1, 1)
            stride = stride.repeat(1, grid_height * grid_width * self.num_anchors)
            stride = stride.reshape(-1, 1)
            wh_weights.append(stride)

        return torch.cat(wh_weights)

    def grid_anchors(
        self,
        grid_sizes: List[List[int]],
        dtype: torch.dtype = torch.float32,
        device: torch.device = torch.device("cpu"),
    ) -> Tensor:

        anchors = []

        for size in grid_sizes:
            grid_height, grid_width = size

            # For output anchor, compute [x_center, y_center, x_center, y_center]
            shifts_x = torch.arange(0, grid_width, dtype=dtype, device=device)
            shifts_y = torch.arange(0, grid_height, dtype=dtype, device=device)
            shift_y, shift_x = torch.meshgrid(shifts_y, shifts_x)

            shifts = torch.stack((shift_x, shift_y), dim=2)
            shifts = shifts.view(1, grid_height, grid_width, 2)
            shifts = shifts.repeat(self.num_anchors, 1, 1, 1)
            shifts = shifts - torch.tensor(0.5, dtype=shifts.dtype, device=device)
            shifts = shifts.reshape(-1, 2)

            anchors.append(shifts)

        return torch.cat(anchors)

    def forward(self, feature_maps: List[Tensor]) -> Tuple[Tensor, Tensor]:
        grid_sizes = list([feature_map.shape[-2:] for feature_map in feature_maps])
        dtype, device = feature_maps[0].dtype, feature_maps[0].device

        wh_weights = self.set_wh_weights(grid_sizes, dtype, device)
        anchors = self.grid_anchors(grid_sizes, dtype, device)

        return anchors, wh_weights


class YOLOv5Lite(nn.Module):
    def __init__(self, ch=8):
        super().__init__()
        self.p3 = nn.Conv2d(3, ch, 3, stride=8, padding=1)
        self.p4 = nn.Conv2d(ch, ch, 3, stride=2, padding=1)
        self.p5 = nn.Conv2d(ch, ch, 3, stride=2, padding=1)
        self.anchor_generator = AnchorGenerator(
            [8, 16, 32],
            [[10, 13, 16, 30, 33, 23], [30, 61, 62, 45, 59, 119], [116, 90, 156, 198, 373, 326]],
        )

    def forward(self, x):
        f3 = self.p3(x)
        f4 = self.p4(f3)
        f5 = self.p5(f4)
        anchors, wh_weights = self.anchor_generator([f3, f4, f5])
        return anchors, wh_weights


def make_model():
    return YOLOv5Lite().half().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 96).half(),)


def other_inputs():
    return [(torch.randn(2, 3, 96, 64).half(),), (torch.randn(1, 3, 128, 128).half(),)]


def probe_inputs():
    return other_inputs()
