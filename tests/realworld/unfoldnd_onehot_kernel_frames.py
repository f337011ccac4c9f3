"""Frame-wise im2col over a (batch, channels, 1, frames) feature map with unfoldNd.UnfoldNd, which builds its
one-hot convolution kernel inside forward (torch.eye(...).reshape(...).repeat(in_channels, ...) with in_channels
read from input.shape[1]); exporting with dynamic_axes={'x': {3: 'frame'}} fails with "Unsupported: ONNX export of
convolution for kernel of unknown shape" (the library author: the kernels are created during the forward pass).

Source: https://github.com/f-dangel/unfoldNd/issues/29
"""
import torch
from torch import nn
from torch.nn.functional import conv1d, conv2d, conv3d
from torch.nn.modules.utils import _pair, _single, _triple
import numpy

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"x": {3: "frame"}}
BLIND = "domains-12"


def _get_kernel_size_numel(kernel_size):
    if not isinstance(kernel_size, tuple):
        raise ValueError(f"kernel_size must be a tuple. Got {kernel_size}.")
    return int(numpy.prod(kernel_size))


def _tuple(kernel_size, N):
    if N == 1:
        return _single(kernel_size)
    elif N == 2:
        return _pair(kernel_size)
    elif N == 3:
        return _triple(kernel_size)


def _get_conv(N):
    if N == 1:
        return conv1d
    elif N == 2:
        return conv2d
    elif N == 3:
        return conv3d


def _make_weight(in_channels, kernel_size, device, dtype):
    kernel_size_numel = _get_kernel_size_numel(kernel_size)
    repeat = [in_channels, 1] + [1 for _ in kernel_size]

    return (
        torch.eye(kernel_size_numel, device=device, dtype=dtype)
        .reshape((kernel_size_numel, 1, *kernel_size))
        .repeat(*repeat)
    )


def unfoldNd(input, kernel_size, dilation=1, padding=0, stride=1):
    batch_size, in_channels = input.shape[0], input.shape[1]

    # get convolution operation
    batch_size_and_in_channels_dims = 2
    N = input.dim() - batch_size_and_in_channels_dims
    conv = _get_conv(N)

    # prepare one-hot convolution kernel
    kernel_size = _tuple(kernel_size, N)
    kernel_size_numel = _get_kernel_size_numel(kernel_size)
    weight = _make_weight(in_channels, kernel_size, input.device, input.dtype)

    unfold = conv(
        input,
        weight,
        bias=None,
        stride=stride,
        padding=padding,
        dilation=dilation,
        groups=in_channels,
    )

    return unfold.reshape(batch_size, in_channels * kernel_size_numel, -1)


class UnfoldNd(nn.Module):
    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self._kernel_size = kernel_size
        self._dilation = dilation
        self._padding = padding
        self._stride = stride

    def forward(self, input):
        return unfoldNd(
            input,
            self._kernel_size,
            dilation=self._dilation,
            padding=self._padding,
            stride=self._stride,
        )


class FrameUnfold(nn.Module):
    def __init__(self, step=3, stride=2):
        super().__init__()
        self.step = step
        self.lib_module = UnfoldNd((1, step), dilation=(1, 1), padding=0, stride=stride)

    def forward(self, x):
        b, c = x.shape[0], x.shape[1]
        lib_outputs = self.lib_module(x)
        a2 = lib_outputs.view(b, c, self.step, -1).transpose(2, 3)
        return a2


def make_model():
    return FrameUnfold().eval()


def example_inputs():
    return (torch.randn(2, 64, 1, 125),)


def other_inputs():
    return [(torch.randn(2, 64, 1, 200),), (torch.randn(2, 64, 1, 57),)]


def probe_inputs():
    return other_inputs()
