"""Deployment wrapper that takes raw uint8 camera frames and resizes them inside the graph with bilinear
`F.interpolate` before normalising. PyTorch's native uint8 interpolation rounds the interpolated value to
nearest, while onnxruntime's Resize on integral types truncates (floors) the intermediate float, so the
exported model's uint8 pixels drift by one level against eager PyTorch (the report's spec question).

Source: https://github.com/onnx/onnx/issues/3390
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"frame": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-11"


class Uint8Preprocess(nn.Module):
    def __init__(self, size=(64, 64)):
        super().__init__()
        self.size = size
        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))
        self.stem = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, frame):
        # frame: (batch, 3, H, W) uint8, straight from the decoder
        resized = F.interpolate(frame, size=self.size, mode="bilinear", align_corners=False)
        x = resized.float() / 255.0
        x = (x - self.mean) / self.std
        return self.stem(x)


def make_model():
    return Uint8Preprocess()


def example_inputs():
    return (torch.randint(0, 256, (2, 3, 120, 160), dtype=torch.uint8),)


def other_inputs():
    return [(torch.randint(0, 256, (3, 3, 97, 131), dtype=torch.uint8),),
            (torch.randint(0, 256, (1, 3, 200, 90), dtype=torch.uint8),)]


def probe_inputs():
    return other_inputs()
