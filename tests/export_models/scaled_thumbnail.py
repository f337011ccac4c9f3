"""A thumbnail of the input at a fixed height whatever the image size: an antialiased bilinear
resize by `scale_factor=16 / image.shape[2]`. torch.export specializes the scale to the example's
(the model keeps the example's output size) and the legacy tracer holds it as a tensor, which
F.interpolate refuses. ONX404 calls `_onnx_interpolate_scaled`, which builds torch's antialias
filter weights from the scale while exporting."""
import torch
import torch.nn.functional as F
from torch import nn


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
    torch.manual_seed(1)
    return [(torch.rand(1, 3, 128, 128),), (torch.rand(3, 3, 48, 80),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}
