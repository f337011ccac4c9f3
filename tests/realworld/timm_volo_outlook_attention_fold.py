"""timm VOLO (volo_d1_224): OutlookAttention unfolds the values, mixes them with the outlook weights and
folds them back with `F.fold(x, output_size=(H, W), ...)` where `H, W` come from `x.shape`; the ONNX
export fails in the col2im symbolic (`'NoneType' object is not subscriptable`) because output_size is
not a constant, and older opsets have no col2im at all.

Source: https://github.com/huggingface/pytorch-image-models/issues/1872
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-8"


class OutlookAttention(nn.Module):

    def __init__(self, dim, num_heads, kernel_size=3, padding=1, stride=1, qkv_bias=False, attn_drop=0., proj_drop=0.):
        super().__init__()
        head_dim = dim // num_heads
        self.num_heads = num_heads
        self.kernel_size = kernel_size
        self.padding = padding
        self.stride = stride
        self.scale = head_dim ** -0.5

        self.v = nn.Linear(dim, dim, bias=qkv_bias)
        self.attn = nn.Linear(dim, kernel_size ** 4 * num_heads)

        self.attn_drop = nn.Dropout(attn_drop)
        self.proj = nn.Linear(dim, dim)
        self.proj_drop = nn.Dropout(proj_drop)

        self.unfold = nn.Unfold(kernel_size=kernel_size, padding=padding, stride=stride)
        self.pool = nn.AvgPool2d(kernel_size=stride, stride=stride, ceil_mode=True)

    def forward(self, x):
        B, H, W, C = x.shape

        v = self.v(x).permute(0, 3, 1, 2)  # B, C, H, W

        h, w = math.ceil(H / self.stride), math.ceil(W / self.stride)
        v = self.unfold(v).reshape(
            B, self.num_heads, C // self.num_heads,
            self.kernel_size * self.kernel_size, h * w).permute(0, 1, 4, 3, 2)  # B,H,N,kxk,C/H

        attn = self.pool(x.permute(0, 3, 1, 2)).permute(0, 2, 3, 1)
        attn = self.attn(attn).reshape(
            B, h * w, self.num_heads, self.kernel_size * self.kernel_size,
            self.kernel_size * self.kernel_size).permute(0, 2, 1, 3, 4)  # B,H,N,kxk,kxk
        attn = attn * self.scale
        attn = attn.softmax(dim=-1)
        attn = self.attn_drop(attn)

        x = (attn @ v).permute(0, 1, 4, 3, 2).reshape(B, C * self.kernel_size * self.kernel_size, h * w)
        x = F.fold(x, output_size=(H, W), kernel_size=self.kernel_size, padding=self.padding, stride=self.stride)

        x = self.proj(x.permute(0, 2, 3, 1))
        x = self.proj_drop(x)

        return x


class Outlooker(nn.Module):
    def __init__(self, dim, kernel_size=3, padding=1, stride=2, num_heads=6, mlp_ratio=3.):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = OutlookAttention(dim, num_heads, kernel_size=kernel_size, padding=padding, stride=stride)
        self.norm2 = nn.LayerNorm(dim)
        hidden = int(dim * mlp_ratio)
        self.mlp = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        x = x + self.mlp(self.norm2(x))
        return x


class VoloStage1(nn.Module):
    """Patch embedding (B, C, H, W -> B, H, W, C) followed by two Outlooker blocks, as in volo_d1."""

    def __init__(self, dim=192):
        super().__init__()
        self.proj = nn.Conv2d(3, dim, kernel_size=8, stride=8)
        self.blocks = nn.Sequential(Outlooker(dim), Outlooker(dim))

    def forward(self, x):
        x = self.proj(x).permute(0, 2, 3, 1)
        return self.blocks(x)


def make_model():
    return VoloStage1().eval()


def example_inputs():
    return (torch.randn(2, 3, 224, 224),)


def other_inputs():
    return [(torch.randn(1, 3, 224, 224),), (torch.randn(3, 3, 224, 224),)]


def probe_inputs():
    return other_inputs()
