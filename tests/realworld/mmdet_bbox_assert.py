"""mmdetection DeltaXYWHBBoxCoder.decode: `assert pred_bboxes.size(0) == bboxes.size(0)` (TracerWarning:
converting a tensor to a Python boolean) before the box arithmetic.

Source: https://github.com/open-mmlab/mmdetection/issues/8201
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"bboxes": {0: "n"}, "pred_bboxes": {0: "n"}}


class Coder(nn.Module):
    def forward(self, bboxes, pred_bboxes):
        assert pred_bboxes.size(0) == bboxes.size(0)
        assert pred_bboxes.size(1) == bboxes.size(1)
        ctr = (bboxes[:, :2] + bboxes[:, 2:]) * 0.5
        wh = bboxes[:, 2:] - bboxes[:, :2]
        new_ctr = ctr + pred_bboxes[:, :2] * wh
        new_wh = wh * pred_bboxes[:, 2:].exp()
        return torch.cat([new_ctr - new_wh * 0.5, new_ctr + new_wh * 0.5], dim=1)


def make_model():
    return Coder()


def example_inputs():
    return (torch.rand(5, 4), torch.randn(5, 4) * 0.1)


def other_inputs():
    return [(torch.rand(8, 4), torch.randn(8, 4) * 0.1), (torch.rand(2, 4), torch.randn(2, 4) * 0.1)]


def probe_inputs():
    return other_inputs()
