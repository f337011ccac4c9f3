"""A BiSeNet-style head (issue 12): the feature map is resized back to the input's size.

The legacy tracer bakes the int() of each size in (ONX203 drops the int()). In the issue's
measurement dropping them turned the dynamo export from OK into ORT-FAILS; `onnxfix export
--fix` must then keep dynamo OK and drop those fixes. (On this machine's torch 2.13 the dynamo
export of this head stays OK either way; tests/test_fix_loop.py replays the issue's verdicts.)
"""

import torch
import torch.nn.functional as F
from torch import nn


class SegHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, stride=2, padding=1)
        self.cls = nn.Conv2d(4, 2, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h, w = int(x.size(2)), int(x.size(3))
        feat = self.cls(torch.relu(self.conv(x)))
        return F.interpolate(feat, size=(h, w), mode="bilinear", align_corners=False)


def example_inputs():
    return (torch.randn(1, 3, 16, 20),)


DYNAMIC = {"x": {2: "height", 3: "width"}}
