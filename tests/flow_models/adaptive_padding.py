"""ONX608 on mmcv's AdaptivePadding (mmdetection's and mmsegmentation's Swin and PVT patch
embeddings): the amounts come from a method, `max((out - 1) * stride + kernel - size, 0)`, and the
pad is chosen by the configuration under `if pad_h > 0 or pad_w > 0:`. Exported at a size that
needs no pad, both exporters drop it for every size. The pad taken always is 0 where the test
failed (the method's `max(..., 0)` keeps the amounts non-negative)."""
import math

import torch
import torch.nn.functional as F
from torch import nn


class AdaptivePadding(nn.Module):
    def __init__(self, kernel_size=4, stride=4, padding="corner"):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def get_pad_shape(self, input_shape):
        input_h, input_w = input_shape
        output_h = math.ceil(input_h / self.stride)
        output_w = math.ceil(input_w / self.stride)
        pad_h = max((output_h - 1) * self.stride + self.kernel_size - input_h, 0)
        pad_w = max((output_w - 1) * self.stride + self.kernel_size - input_w, 0)
        return pad_h, pad_w

    def forward(self, x):
        pad_h, pad_w = self.get_pad_shape(x.size()[-2:])
        if pad_h > 0 or pad_w > 0:
            if self.padding == "corner":
                x = F.pad(x, [0, pad_w, 0, pad_h])
            elif self.padding == "same":
                x = F.pad(x, [pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h // 2])
        return x


class PatchEmbed(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.corner = AdaptivePadding(padding="corner")
        self.same = AdaptivePadding(padding="same")
        self.proj = nn.Conv2d(3, 8, 4, 4)

    def forward(self, images):
        return self.proj(self.corner(images)), self.proj(self.same(images))


def make_model():
    return PatchEmbed()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(1, 3, 32, 48),)


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(2, 3, 30, 45),), (torch.randn(1, 3, 33, 64),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}
