"""BiSeNet face parsing: `feat32_shape = [int(t) for t in feat32.size()[2:]]`, then the upsample size;
TracerWarning "Converting a tensor to a Python integer" and a fixed output size.

Source: https://github.com/yakhyo/face-parsing/issues/7
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "scalars"
DYNAMIC = {"x": {2: "h", 3: "w"}}


class ContextPath(nn.Module):
    def __init__(self):
        super().__init__()
        self.down = nn.Conv2d(3, 4, 3, stride=2, padding=1)
        self.head = nn.Conv2d(4, 4, 1)

    def forward(self, x):
        feat = self.down(x)
        feat_shape = [int(t) for t in x.size()[2:]]
        return F.interpolate(self.head(feat), feat_shape, mode="nearest")


def make_model():
    return ContextPath()


def example_inputs():
    return (torch.randn(1, 3, 16, 16),)


def other_inputs():
    return [(torch.randn(1, 3, 20, 12),), (torch.randn(1, 3, 8, 24),)]


def probe_inputs():
    return other_inputs()
