"""CAREamics N2V2 U-Net (2D/3D microscopy denoising): its MaxBlurPool layer re-wraps its Pascal blur kernel
in forward (`self.kernel = torch.as_tensor(self.kernel, device=x.device, dtype=x.dtype)`) and builds the
depthwise conv weight with `self.kernel.repeat((x.size(1), 1, 1, 1, 1))`, `groups=x.size(1)`; exporting the
3D n2v2 model to ONNX with dynamic axes fails in the Maxpool layer ("the convolution kernel is dynamically
expanded to a size matching the number of channels"; the fix casts `int(x.size(1))`).

Source: https://github.com/CAREamics/careamics/pull/275
"""
from typing import List, Optional, Tuple, Union

import torch
import torch.nn as nn
from torch.nn import functional as F

CLASS = "views"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "depth", 3: "height", 4: "width"}}
BLIND = "domains-40"


def _unpack_kernel_size(kernel_size: Union[Tuple[int, ...], int], dim: int) -> Tuple[int, ...]:
    if isinstance(kernel_size, int):
        kernel_dims = tuple([kernel_size for _ in range(dim)])
    else:
        kernel_dims = kernel_size
    return kernel_dims


def _compute_zero_padding(kernel_size: Union[Tuple[int, ...], int], dim: int) -> Tuple[int, ...]:
    kernel_dims = _unpack_kernel_size(kernel_size, dim)
    return tuple([(kd - 1) // 2 for kd in kernel_dims])


def get_pascal_kernel_1d(kernel_size: int, norm: bool = False, *, device: Optional[torch.device] = None,
                         dtype: Optional[torch.dtype] = None) -> torch.Tensor:
    pre: List[float] = []
    cur: List[float] = []
    for i in range(kernel_size):
        cur = [1.0] * (i + 1)
        for j in range(1, i // 2 + 1):
            value = pre[j - 1] + pre[j]
            cur[j] = value
            if i != 2 * j:
                cur[-j - 1] = value
        pre = cur
    out = torch.tensor(cur, device=device, dtype=dtype)
    if norm:
        out = out / out.sum()
    return out


def _get_pascal_kernel_nd(kernel_size, norm: bool = True, dim: int = 2, *, device=None, dtype=None):
    kernel_dims = _unpack_kernel_size(kernel_size, dim)
    kernel = [get_pascal_kernel_1d(kd, device=device, dtype=dtype) for kd in kernel_dims]
    if dim == 2:
        kernel = kernel[0][:, None] * kernel[1][None, :]
    elif dim == 3:
        kernel = kernel[0][:, None, None] * kernel[1][None, :, None] * kernel[2][None, None, :]
    if norm:
        kernel = kernel / torch.sum(kernel)
    return kernel


def _max_blur_pool_by_kernel3d(x, kernel, stride, max_pool_size, ceil_mode):
    # compute local maxima
    x = F.max_pool3d(x, kernel_size=max_pool_size, padding=0, stride=1, ceil_mode=ceil_mode)
    # blur and downsample
    padding = _compute_zero_padding((kernel.shape[-3], kernel.shape[-2], kernel.shape[-1]), dim=3)
    return F.conv3d(x, kernel, padding=padding, stride=stride, groups=x.size(1))


class MaxBlurPool(nn.Module):
    def __init__(self, dim: int, kernel_size, stride: int = 2, max_pool_size: int = 2, ceil_mode: bool = False):
        super().__init__()
        self.dim = dim
        self.kernel_size = kernel_size
        self.stride = stride
        self.max_pool_size = max_pool_size
        self.ceil_mode = ceil_mode
        self.kernel = _get_pascal_kernel_nd(kernel_size, norm=True, dim=self.dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.kernel = torch.as_tensor(self.kernel, device=x.device, dtype=x.dtype)
        return _max_blur_pool_by_kernel3d(
            x,
            self.kernel.repeat((x.size(1), 1, 1, 1, 1)),
            self.stride,
            self.max_pool_size,
            self.ceil_mode,
        )


class Conv_Block(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv1 = nn.Conv3d(in_channels, out_channels, 3, padding=1)
        self.conv2 = nn.Conv3d(out_channels, out_channels, 3, padding=1)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.conv2(self.act(self.conv1(x))))


class N2V2UNet3D(nn.Module):
    def __init__(self, in_channels=1, num_classes=1, base=8):
        super().__init__()
        self.enc1 = Conv_Block(in_channels, base)
        self.pooling = MaxBlurPool(dim=3, kernel_size=3, max_pool_size=2)
        self.enc2 = Conv_Block(base, base * 2)
        self.up = nn.Upsample(scale_factor=2, mode="trilinear", align_corners=True)
        self.dec = Conv_Block(base * 3, base)
        self.final = nn.Conv3d(base, num_classes, 1)

    def forward(self, x):
        s1 = self.enc1(x)
        x = self.enc2(self.pooling(s1))
        x = torch.cat([self.up(x), s1], dim=1)
        return self.final(self.dec(x))


def make_model():
    return N2V2UNet3D().eval()


def example_inputs():
    return (torch.rand(1, 1, 8, 16, 16),)


def other_inputs():
    return [(torch.rand(2, 1, 12, 20, 24),), (torch.rand(1, 1, 16, 8, 12),)]


def probe_inputs():
    return other_inputs()
