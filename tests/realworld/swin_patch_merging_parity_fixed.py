"""Control: the fix posted for GroundingDINO's PatchMerging, the pad amounts as branch-free arithmetic
(`F.pad(x, (0, 0, 0, W % 2, 0, H % 2))` always; a zero pad is a no-op).

Source: https://github.com/ailia-ai/ailia-models/issues/1493
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "control_flow"
CONTROL = True
DYNAMIC = {"x": {2: "h", 3: "w"}}


class Backbone(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)

    def forward(self, x):
        x = x.permute(0, 2, 3, 1)
        x = F.pad(x, (0, 0, 0, x.shape[2] % 2, 0, x.shape[1] % 2))
        x0 = x[:, 0::2, 0::2, :]
        x1 = x[:, 1::2, 0::2, :]
        x2 = x[:, 0::2, 1::2, :]
        x3 = x[:, 1::2, 1::2, :]
        x = torch.cat([x0, x1, x2, x3], -1).flatten(1, 2)
        return self.reduction(x)


def make_model():
    return Backbone()


def example_inputs():
    return (torch.randn(1, 4, 8, 8),)


def other_inputs():
    return [(torch.randn(1, 4, 9, 7),), (torch.randn(1, 4, 10, 12),)]


def probe_inputs():
    return other_inputs()
