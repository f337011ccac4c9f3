"""ONX402 through a name: EnCodec's padded convolution computes the frame count as a float,
`n_frames = (length - kernel_size + padding_total) / stride + 1`, and pads to
`(math.ceil(n_frames) - 1) * stride + ...`. While the legacy exporter traces, `math.ceil` turns the
traced length into a Python number: the padding is a constant, silently wrong for other lengths.
Fixed (unsafe: `stride` is only annotated `int`) by `(length - kernel_size + padding_total +
stride - 1) // stride + 1`, integer size math both exporters keep symbolic."""
import math

import torch
from torch import nn


class PaddedConv1d(nn.Module):
    def __init__(self, channels=3, kernel_size=7, stride=3):
        super().__init__()
        self.conv = nn.Conv1d(channels, channels, kernel_size, stride)

    @staticmethod
    def _extra_padding(x: torch.Tensor, kernel_size: int, stride: int, padding_total: int = 0) -> int:
        length = x.shape[-1]
        n_frames = (length - kernel_size + padding_total) / stride + 1
        ideal_length = (math.ceil(n_frames) - 1) * stride + (kernel_size - padding_total)
        return ideal_length - length

    def forward(self, x):
        kernel_size, stride = self.conv.kernel_size[0], self.conv.stride[0]
        padding_total = kernel_size - stride
        extra = self._extra_padding(x, kernel_size, stride, padding_total)
        return self.conv(nn.functional.pad(x, (padding_total, extra)))


def make_model():
    torch.manual_seed(0)
    return PaddedConv1d()


def example_inputs():
    return (torch.randn(2, 3, 40),)


def probe_inputs():
    return [(torch.randn(1, 3, 29),), (torch.randn(3, 3, 53),)]


DYNAMIC = {0: {0: "batch", 2: "length"}}
