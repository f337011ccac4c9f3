"""ONX606: TensorFlow-style "SAME" padding as transformers' MobileNetV2 computes it: the pad from
whether the input size divides by the stride. Dynamo keeps the export-time remainder (wrong output
size for sizes with another remainder); legacy records the branch taken. Fixed (unsafely: needs a
positive stride) by one formula with the remainder counted from 1."""
import torch
from torch import nn
from torch.nn import functional as F


def apply_tf_padding(features: torch.Tensor, conv_layer: nn.Conv2d) -> torch.Tensor:
    in_height = int(features.shape[-2])
    in_width = int(features.shape[-1])
    stride_height, stride_width = conv_layer.stride
    kernel_height, kernel_width = conv_layer.kernel_size

    if in_height % stride_height == 0:
        pad_along_height = max(kernel_height - stride_height, 0)
    else:
        pad_along_height = max(kernel_height - (in_height % stride_height), 0)

    if in_width % stride_width == 0:
        pad_along_width = max(kernel_width - stride_width, 0)
    else:
        pad_along_width = max(kernel_width - (in_width % stride_width), 0)

    pad_left = pad_along_width // 2
    pad_top = pad_along_height // 2
    padding = (pad_left, pad_along_width - pad_left, pad_top, pad_along_height - pad_top)
    return F.pad(features, padding, "constant", 0.0)


class Stem(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, stride=2)
        self.down = nn.Conv2d(4, 4, 3, stride=2)

    def forward(self, pixel_values: torch.Tensor):
        features = self.conv(apply_tf_padding(pixel_values, self.conv))
        return self.down(apply_tf_padding(features, self.down))


def make_model():
    torch.manual_seed(0)
    return Stem()


def example_inputs():
    return (torch.randn(2, 3, 16, 16),)


def probe_inputs():
    return [(torch.randn(2, 3, 18, 14),), (torch.randn(3, 3, 21, 19),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}
