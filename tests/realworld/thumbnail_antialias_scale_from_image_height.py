"""A model that first shrinks the input image to a 16-pixel-high thumbnail with an antialiased
bilinear `F.interpolate(image, scale_factor=16 / image.shape[2], ...)` (aspect ratio kept). The report
(fixed in the linked PR) says dynamo export specialized the symbolic scale to the example's value, so the
ONNX graph kept the input height/width and onnxruntime returned unchanged spatial sizes for other inputs;
the legacy exporter has no `_upsample_bilinear2d_aa` at all.

Source: https://github.com/pytorch/pytorch/pull/185371
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-15"


class ThumbnailEncoder(nn.Module):
    def __init__(self, channels=8):
        super().__init__()
        self.conv = nn.Conv2d(3, channels, 3, padding=1)
        self.act = nn.ReLU()

    def forward(self, image):
        thumb = F.interpolate(
            image,
            scale_factor=16 / image.shape[2],
            mode="bilinear",
            align_corners=False,
            antialias=True,
        )
        return self.act(self.conv(thumb))


def make_model():
    return ThumbnailEncoder().eval()


def example_inputs():
    return (torch.rand(2, 3, 64, 96),)


def other_inputs():
    return [(torch.rand(1, 3, 128, 128),), (torch.rand(3, 3, 48, 80),)]


def probe_inputs():
    return other_inputs()
