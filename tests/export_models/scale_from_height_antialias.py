"""A thumbnail resize whose scale is computed from the input's height (`scale_factor=16 /
image.shape[2]`, antialias=True bilinear): torch.export specializes the scale and the legacy exporter
has no antialiased resize; ONX404's `_onnx_interpolate_scaled` computes it as two weight-matrix
products (ONX519's `_onnx_interpolate` did, for the legacy exporter only). The legacy tracer holds the height,
and so the scale, as a tensor: the output size is floored from it as a tensor too, so the weights
follow each input's size instead of the export's (they were Python numbers of the traced size:
SILENTLY-WRONG on any other height)."""
import torch
from torch import nn
import torch.nn.functional as F


class Thumbnail(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, image):
        thumb = F.interpolate(image, scale_factor=16 / image.shape[2], mode="bilinear", align_corners=False,
                              antialias=True)
        return self.conv(thumb)


def make_model():
    torch.manual_seed(0)
    return Thumbnail().eval()


def example_inputs():
    torch.manual_seed(0)
    return (torch.rand(2, 3, 64, 96),)


def probe_inputs():
    return [(torch.rand(1, 3, 128, 128),), (torch.rand(3, 3, 48, 80),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}
