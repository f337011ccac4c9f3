"""Per-image standardization on a raw uint8 image batch: `img.mean(dim=(2, 3), keepdim=True,
dtype=torch.float32)` on the integer operand. The report: `torch.mean(x, dtype=...)` on an integer
tensor fails to convert because the converter ignores the `dtype` kwarg and reduces the integer
operand itself ("mean[0]: dtype si32 vs f32"); torch promotes the operand before averaging.

Source: https://github.com/apple/coreai-torch/pull/42
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"img": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-32"


class PerImageStandardize(nn.Module):
    def __init__(self, eps=1e-5):
        super().__init__()
        self.eps = eps

    def forward(self, img):
        mean = img.mean(dim=(2, 3), keepdim=True, dtype=torch.float32)
        x = img.to(torch.float32) - mean
        std = x.pow(2).mean(dim=(2, 3), keepdim=True).add(self.eps).sqrt()
        return x / std


class TinyClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = PerImageStandardize()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.head = nn.Linear(8, 4)

    def forward(self, img):
        x = self.norm(img)
        x = self.conv(x).relu()
        return self.head(x.mean(dim=(2, 3)))


def make_model():
    return TinyClassifier().eval()


def _img(b, h, w):
    return torch.randint(0, 256, (b, 3, h, w), dtype=torch.uint8)


def example_inputs():
    return (_img(2, 16, 20),)


def other_inputs():
    return [(_img(3, 24, 12),), (_img(1, 9, 31),)]


def probe_inputs():
    return other_inputs()
