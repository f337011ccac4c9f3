"""A weight-free "model" that resizes input images to a fixed size with
`F.interpolate(input=x, size=self._size, mode='bilinear', antialias=self._anti_aliasing)`; the report says
ONNX export fails with both the old exporter and the dynamo one ("Unsupported FX nodes:
{'call_function': ['aten._upsample_bilinear2d_aa.default']}"), while anti_aliasing=False exports.

Source: https://github.com/pytorch/pytorch/issues/128818
"""
from typing import Tuple

import torch
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-15"


class ResizeModel(torch.nn.Module):
    """
    A "model" (without) trainable weights which resizes inputs.
    """

    def __init__(
            self,
            size: Tuple[int, int],
            anti_aliasing: bool,
    ):
        super(ResizeModel, self).__init__()
        self._size = size
        self._anti_aliasing = anti_aliasing

    def forward(self, x):
        return F.interpolate(
            input=x,
            size=self._size,
            mode='bilinear',
            align_corners=False,
            antialias=self._anti_aliasing,
        )


def make_model():
    return ResizeModel(size=(64, 48), anti_aliasing=True).eval()


def example_inputs():
    return (torch.rand(2, 3, 240, 320),)


def other_inputs():
    return [(torch.rand(1, 3, 480, 360),), (torch.rand(3, 3, 150, 200),)]


def probe_inputs():
    return other_inputs()
