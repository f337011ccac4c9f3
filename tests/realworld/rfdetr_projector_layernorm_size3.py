"""RF-DETR backbone projector: its channels-first `LayerNorm` permutes to NHWC and calls
`F.layer_norm(x, (x.size(3),), ...)`, taking the normalized shape from the traced tensor's size; users
exporting with a dynamic batch axis report the ONNX model does not support dynamic batching until this
forward is patched to use `self.normalized_shape`.

Source: https://github.com/roboflow/rf-detr/issues/376
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-36"


class LayerNorm(nn.Module):
    """
    A LayerNorm variant, popularized by Transformers, that performs point-wise mean and
    variance normalization over the channel dimension for inputs that have shape
    (batch_size, channels, height, width).
    """

    def __init__(self, normalized_shape, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(normalized_shape))
        self.bias = nn.Parameter(torch.zeros(normalized_shape))
        self.eps = eps
        self.normalized_shape = (normalized_shape,)

    def forward(self, x):
        """
        LayerNorm forward
        TODO: this is a hack to avoid overflow when using fp16
        """
        x = x.permute(0, 2, 3, 1)
        x = F.layer_norm(x, (x.size(3),), self.weight, self.bias, self.eps)
        x = x.permute(0, 3, 1, 2)
        return x


class ConvX(nn.Module):
    def __init__(self, in_planes, out_planes, kernel=3, stride=1):
        super().__init__()
        self.conv = nn.Conv2d(in_planes, out_planes, kernel_size=kernel, stride=stride,
                              padding=kernel // 2, bias=False)
        self.bn = LayerNorm(out_planes)
        self.act = nn.SiLU(inplace=True)

    def forward(self, x):
        out = self.act(self.bn(self.conv(x)))
        return out


class Projector(nn.Module):
    def __init__(self, in_channels=16, out_channels=32):
        super().__init__()
        self.cv1 = ConvX(in_channels, out_channels, 1)
        self.cv2 = ConvX(out_channels, out_channels, 3)
        self.ln = LayerNorm(out_channels)

    def forward(self, x):
        return self.ln(self.cv2(self.cv1(x)))


def make_model():
    return Projector()


def example_inputs():
    return (torch.randn(2, 16, 12, 12),)


def other_inputs():
    return [(torch.randn(3, 16, 10, 14),), (torch.randn(1, 16, 8, 8),)]


def probe_inputs():
    return other_inputs()
