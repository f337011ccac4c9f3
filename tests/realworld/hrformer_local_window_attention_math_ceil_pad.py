"""HRFormer (mmpose top-down pose estimation) LocalWindowSelfAttention: the feature map is
center-padded to the window with `math.ceil(H / Wh) * Wh - H` and viewed as
`x.view(B, math.ceil(H / Wh), Wh, math.ceil(W / Ww), Ww, C)`, where H, W come from `x.size()` in the
HRFormer block; `tools/deployment/pytorch2onnx.py` on an HRFormer config fails while tracing.
(mmpose's MultiheadAttention with relative position bias is shown as plain nn.MultiheadAttention,
CrossFFN as an MLP.)

Source: https://github.com/open-mmlab/mmpose/issues/1342
"""
import math

import torch
import torch.nn as nn
from torch.nn.functional import pad

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-13"


class LocalWindowSelfAttention(nn.Module):
    r""" Local-window Self Attention (LSA) module with relative position bias."""

    def __init__(self, embed_dim, num_heads, window_size=7):
        super(LocalWindowSelfAttention, self).__init__()
        self.window_size = window_size
        self.attn = nn.MultiheadAttention(embed_dim, num_heads)

    def forward(self, x, H, W, **kwargs):
        B, N, C = x.shape
        x = x.view(B, H, W, C)
        Wh = Ww = self.window_size

        # center-pad the feature on H and W axes
        pad_h = math.ceil(H / Wh) * Wh - H
        pad_w = math.ceil(W / Ww) * Ww - W
        x = pad(x, (0, 0, pad_w // 2, pad_w - pad_w // 2, pad_h // 2,
                    pad_h - pad_h // 2))

        # permute
        x = x.view(B, math.ceil(H / Wh), Wh, math.ceil(W / Ww), Ww, C)
        x = x.permute(2, 4, 0, 1, 3, 5)
        x = x.reshape(Wh * Ww, -1, C)

        # attention
        out = self.attn(x, x, x, need_weights=False, **kwargs)[0]

        # reverse permutation
        out = out.reshape(Wh, Ww, B, math.ceil(H / Wh), math.ceil(W / Ww), C)
        out = out.permute(2, 0, 3, 1, 4, 5)
        out = out.reshape(B, H + pad_h, W + pad_w, C)

        # de-pad
        out = out[:, pad_h // 2:H + pad_h // 2, pad_w // 2:W + pad_w // 2]
        return out.reshape(B, N, C)


class HRFormerBlock(nn.Module):
    expansion = 1

    def __init__(self, in_features, out_features, num_heads, window_size=7, mlp_ratio=4.0):
        super(HRFormerBlock, self).__init__()
        self.norm1 = nn.LayerNorm(in_features)
        self.attn = LocalWindowSelfAttention(in_features, num_heads=num_heads, window_size=window_size)
        self.norm2 = nn.LayerNorm(out_features)
        hidden = int(in_features * mlp_ratio)
        self.ffn = nn.Sequential(nn.Linear(in_features, hidden), nn.GELU(), nn.Linear(hidden, out_features))

    def forward(self, x):
        B, C, H, W = x.size()
        # Attention
        x = x.view(B, C, -1).permute(0, 2, 1)
        x = x + self.attn(self.norm1(x), H, W)
        # FFN
        x = x + self.ffn(self.norm2(x))
        x = x.permute(0, 2, 1).view(B, C, H, W)
        return x


class HRFormerBranch(nn.Module):
    def __init__(self, channels=32, num_joints=17):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, channels, 3, 2, 1), nn.BatchNorm2d(channels), nn.ReLU(),
                                  nn.Conv2d(channels, channels, 3, 2, 1), nn.BatchNorm2d(channels), nn.ReLU())
        self.blocks = nn.Sequential(HRFormerBlock(channels, channels, num_heads=1, window_size=7),
                                    HRFormerBlock(channels, channels, num_heads=1, window_size=7))
        self.final_layer = nn.Conv2d(channels, num_joints, 1)

    def forward(self, x):
        return self.final_layer(self.blocks(self.stem(x)))


def make_model():
    return HRFormerBranch().eval()


def example_inputs():
    return (torch.randn(1, 3, 256, 192),)


def other_inputs():
    return [(torch.randn(2, 3, 200, 168),), (torch.randn(1, 3, 96, 128),)]


def probe_inputs():
    return other_inputs()
