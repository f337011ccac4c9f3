"""GroundingDINO's Swin BasicLayer: `Hp = int(np.ceil(H / self.window_size)) * self.window_size` with H, W
passed in from the caller's shape: NumPy math on sizes, done in a callee.

Source: https://github.com/ailia-ai/ailia-models/issues/1493
"""
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "cross-call"
FAMILY = "numpy_interop"
DYNAMIC = {"x": {2: "h", 3: "w"}}


class BasicLayer(nn.Module):
    def __init__(self, window_size=4):
        super().__init__()
        self.window_size = window_size

    def forward(self, x, H, W):
        Hp = int(np.ceil(H / self.window_size)) * self.window_size
        Wp = int(np.ceil(W / self.window_size)) * self.window_size
        img_mask = torch.zeros((1, Hp, Wp, 1), device=x.device)
        img_mask[:, H:, :, :] = 1.0
        img_mask[:, :, W:, :] = 1.0
        return F.pad(x, (0, Wp - W, 0, Hp - H)) + img_mask.permute(0, 3, 1, 2)


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = BasicLayer(4)

    def forward(self, x):
        H, W = x.size(2), x.size(3)
        return self.layer(x, H, W)


def make_model():
    return Backbone()


def example_inputs():
    return (torch.randn(1, 2, 6, 7),)


def other_inputs():
    return [(torch.randn(1, 2, 9, 13),), (torch.randn(1, 2, 8, 8),)]


def probe_inputs():
    return other_inputs()
