"""CoreML export of Ultralytics YOLO11x/YOLO26x (and "any model with attention layers that compute N = H * W and
pass it through int()") fails during tracing-based conversion: `n = int(h * w)` on the traced spatial sizes turns
into an `_int` cast on a shape-derived tensor, and the flattened `reshape(B, C, n)` is what the reporter's minimal
repro exercises (a trace freezes `n` to the example's H*W).

Source: https://github.com/apple/coremltools/issues/2755
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-34"


class Model(torch.nn.Module):
    def forward(self, x):
        h = x.shape[2]
        w = x.shape[3]
        n = int(h * w)  # triggers _int op on (1,)-shaped tensor
        return x.reshape(x.shape[0], x.shape[1], n)


class AttnBlock(nn.Module):
    """A little context: a 1x1 qkv conv and attention over the flattened H*W tokens."""

    def __init__(self, c=16):
        super().__init__()
        self.qkv = nn.Conv2d(c, 3 * c, 1)
        self.flatten = Model()
        self.proj = nn.Conv2d(c, c, 1)

    def forward(self, x):
        B, C, H, W = x.shape
        q, k, v = self.flatten(self.qkv(x)).chunk(3, dim=1)
        attn = (q.transpose(-2, -1) @ k) * (C ** -0.5)
        out = v @ attn.softmax(dim=-1).transpose(-2, -1)
        return x + self.proj(out.view(B, C, H, W))


def make_model():
    return AttnBlock().eval()


def example_inputs():
    return (torch.randn(1, 16, 20, 20),)


def other_inputs():
    return [(torch.randn(2, 16, 12, 16),), (torch.randn(1, 16, 8, 24),)]


def probe_inputs():
    return other_inputs()
