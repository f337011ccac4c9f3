"""GroundingDINO's Swin PatchMerging: `pad_input = (H % 2 == 1) or (W % 2 == 1)`, then `F.pad(x, (0, 0, 0, W % 2, 0, H % 2))`,
with H, W handed in from the caller's `x.shape`. Dynamo keeps the branch of the example's parity.

Source: https://github.com/ailia-ai/ailia-models/issues/1493
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"x": {2: "h", 3: "w"}}


class PatchMerging(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)

    def forward(self, x, H, W):
        B, L, C = x.shape
        x = x.view(B, H, W, C)
        pad_input = (H % 2 == 1) or (W % 2 == 1)
        if pad_input:
            x = F.pad(x, (0, 0, 0, W % 2, 0, H % 2))
        x0 = x[:, 0::2, 0::2, :]
        x1 = x[:, 1::2, 0::2, :]
        x2 = x[:, 0::2, 1::2, :]
        x3 = x[:, 1::2, 1::2, :]
        x = torch.cat([x0, x1, x2, x3], -1).view(B, -1, 4 * C)
        return self.reduction(x)


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.merge = PatchMerging(4)

    def forward(self, x):
        B, C, H, W = x.shape
        tokens = x.flatten(2).transpose(1, 2)
        return self.merge(tokens, H, W)


def make_model():
    return Backbone()


def example_inputs():
    return (torch.randn(1, 4, 8, 8),)


def other_inputs():
    return [(torch.randn(1, 4, 9, 7),), (torch.randn(1, 4, 10, 12),)]


def probe_inputs():
    return other_inputs()
