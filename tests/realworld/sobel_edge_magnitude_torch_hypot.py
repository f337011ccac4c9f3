"""An edge-feature module computes Sobel gradients with fixed conv kernels and combines them with
`torch.hypot(gx, gy)`. OpenVINO's PyTorch frontend had no conversion for `aten::hypot`, so models using
it fail to convert (issue #37824); the torch.onnx exporters have no `hypot` conversion either.

Source: https://github.com/openvinotoolkit/openvino/issues/37824
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"img": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-26"


class SobelMagnitude(nn.Module):
    def __init__(self):
        super().__init__()
        kx = torch.tensor([[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]])
        self.register_buffer("kx", kx.view(1, 1, 3, 3))
        self.register_buffer("ky", kx.t().contiguous().view(1, 1, 3, 3))
        self.head = nn.Conv2d(2, 8, 3, padding=1)

    def forward(self, img):
        gray = img.mean(dim=1, keepdim=True)
        gx = F.conv2d(gray, self.kx, padding=1)
        gy = F.conv2d(gray, self.ky, padding=1)
        mag = torch.hypot(gx, gy)
        return self.head(torch.cat([gray, mag], dim=1))


def make_model():
    return SobelMagnitude().eval()


def example_inputs():
    return (torch.rand(2, 3, 32, 32),)


def other_inputs():
    return [(torch.rand(3, 3, 48, 40),), (torch.rand(1, 3, 21, 17),)]


def probe_inputs():
    return other_inputs()
