"""sleap-nn's ONNX wrapper (talmolab/sleap-nn#672): the image resized by a configured scale with
`F.interpolate(size=(int(H * s), int(W * s)), antialias=True)`. The legacy exporter has no
symbolic for the antialiased resize; torch.export specializes `int()` of the float size (the
output kept the export size: silently wrong at others)."""
import torch
from torch import nn
from torch.nn import functional as F

DYNAMIC = {"image": {2: "height", 3: "width"}}


class ScaledResize(nn.Module):
    def __init__(self, input_scale=0.5):
        super().__init__()
        self.input_scale = input_scale
        self.head = nn.Conv2d(1, 2, 3, padding=1)

    def forward(self, image):
        height = int(image.shape[-2] * self.input_scale)
        width = int(image.shape[-1] * self.input_scale)
        image = F.interpolate(image, size=(height, width), mode="bilinear", align_corners=False, antialias=True)
        return self.head(image)


def make_model():
    torch.manual_seed(0)
    return ScaledResize().eval()


def _image(height, width, seed):
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(1, 1, height, width, generator=g),)


def example_inputs():
    return _image(32, 24, 0)


def probe_inputs():
    return [_image(40, 36, 1), _image(26, 30, 2)]
