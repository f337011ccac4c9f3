"""A stereo 3-D detection head squeezes the disparity axis of its 4-D cost volume (B, C, D, H, W) with
`nn.AdaptiveMaxPool3d((1, None, None))`, keeping H and W; the report says this pooling fails to export to ONNX
(while `nn.AdaptiveMaxPool3d(1)` exports as a plain max pool).

Source: https://github.com/pytorch/pytorch/issues/36425
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 3: "height", 4: "width"}}
BLIND = "operators-5"


class TestModel(nn.Module):
    def __init__(self):
        super(TestModel, self).__init__()
        # cost-volume aggregation, then collapse the disparity dimension
        self.cost_agg = nn.Sequential(
            nn.Conv3d(64, 64, kernel_size=3, padding=1),
            nn.BatchNorm3d(64),
            nn.ReLU(inplace=True),
        )
        self.m = nn.AdaptiveMaxPool3d((1, None, None))
        self.head = nn.Conv2d(64, 16, kernel_size=1)

    def forward(self, x):
        x = self.cost_agg(x)
        x = self.m(x)
        x = x.squeeze(2)
        x = self.head(F.relu(x))
        return x


def make_model():
    return TestModel().eval()


def example_inputs():
    return (torch.randn(1, 64, 10, 9, 8),)


def other_inputs():
    return [(torch.randn(2, 64, 10, 12, 16),), (torch.randn(3, 64, 10, 7, 11),)]


def probe_inputs():
    return other_inputs()
