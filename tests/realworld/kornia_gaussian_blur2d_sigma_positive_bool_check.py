"""kornia `gaussian_blur2d` (here inside an anomalib-style anomaly-map generator, teacher/student feature distance
upsampled and smoothed with `GaussianBlur2d`): the sigma validation
`KORNIA_CHECK(bool((sigma > 0).all()), f"sigma must be positive, got {sigma}")` calls `bool()` on a tensor,
which the PR says is untraceable by dynamo and skips under `torch.compiler.is_compiling()`. (kornia's
`filter2d` reshape of the kernel also trips the legacy exporter, "convolution for kernel of unknown shape".)
(kornia's check helpers, gaussian kernel and filter2d copied in reduced form; random feature extractors.)

Source: https://github.com/kornia/kornia/pull/3779
"""
from typing import Optional

import torch
from torch import nn
import torch.nn.functional as F

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-56"


def KORNIA_CHECK(condition: bool, msg: Optional[str] = None, raises: bool = True) -> bool:
    if not condition:
        if raises:
            raise Exception(msg)
        return False
    return True


def KORNIA_CHECK_SHAPE(x: torch.Tensor, shape: list, raises: bool = True) -> bool:
    if len(x.shape) != len(shape):
        raise TypeError(f"{x} shape must be [{shape}]. Got {x.shape}")
    for i in range(len(shape)):
        dim_: str = shape[i]
        if not dim_.isnumeric():
            continue
        dim = int(dim_)
        if x.shape[i] != dim:
            raise TypeError(f"{x} shape must be [{shape}]. Got {x.shape}")
    return True


def gaussian(window_size: int, sigma: torch.Tensor) -> torch.Tensor:
    KORNIA_CHECK_SHAPE(sigma, ["B", "1"])
    batch_size = sigma.shape[0]
    mean = torch.tensor([[float(window_size // 2)]], device=sigma.device, dtype=sigma.dtype)
    x = (torch.arange(window_size, device=sigma.device, dtype=sigma.dtype) - mean).expand(batch_size, -1)
    if window_size % 2 == 0:
        x = x + 0.5
    gauss = torch.exp(-x.pow(2.0) / (2 * sigma.pow(2.0)))
    return gauss / gauss.sum(-1, keepdim=True)


def _compute_padding(kernel_size: list) -> list:
    computed = [k - 1 for k in kernel_size]
    out_padding = 2 * len(kernel_size) * [0]
    for i in range(len(kernel_size)):
        computed_tmp = computed[-(i + 1)]
        pad_front = computed_tmp // 2
        out_padding[2 * i + 0] = pad_front
        out_padding[2 * i + 1] = computed_tmp - pad_front
    return out_padding


def filter2d(input: torch.Tensor, kernel: torch.Tensor, border_type: str = "reflect") -> torch.Tensor:
    b, c, h, w = input.shape
    tmp_kernel = kernel.flip((-2, -1))[:, None, ...].to(device=input.device, dtype=input.dtype)
    tmp_kernel = tmp_kernel.expand(-1, c, -1, -1)
    height, width = tmp_kernel.shape[-2:]
    input = F.pad(input, _compute_padding([height, width]), mode=border_type)
    tmp_kernel = tmp_kernel.reshape(-1, 1, height, width)
    input = input.view(-1, tmp_kernel.size(0), input.size(-2), input.size(-1))
    output = F.conv2d(input, tmp_kernel, groups=tmp_kernel.size(0), padding=0, stride=1)
    return output.view(b, c, h, w)


def gaussian_blur2d(input, kernel_size, sigma, border_type: str = "reflect", separable: bool = True) -> torch.Tensor:
    KORNIA_CHECK_SHAPE(input, ["B", "C", "H", "W"])
    if isinstance(sigma, tuple):
        sigma = torch.tensor([sigma], device=input.device, dtype=input.dtype)
    else:
        sigma = sigma.to(device=input.device, dtype=input.dtype)

    # Validate sigma values are positive
    KORNIA_CHECK_SHAPE(sigma, ["B", "2"])
    KORNIA_CHECK(bool((sigma > 0).all()), f"sigma must be positive, got {sigma}")

    ky, kx = kernel_size
    bs = sigma.shape[0]
    kernel_x = gaussian(kx, sigma[:, 1].view(bs, 1))
    kernel_y = gaussian(ky, sigma[:, 0].view(bs, 1))
    out_x = filter2d(input, kernel_x[..., None, :], border_type)
    return filter2d(out_x, kernel_y[..., None], border_type)


class GaussianBlur2d(nn.Module):
    def __init__(self, kernel_size, sigma, border_type: str = "reflect", separable: bool = True) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.sigma = sigma
        self.border_type = border_type
        self.separable = separable

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return gaussian_blur2d(input, self.kernel_size, self.sigma, self.border_type, self.separable)


class AnomalyMapModel(nn.Module):
    def __init__(self, sigma: int = 4) -> None:
        super().__init__()
        self.teacher = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.ReLU(), nn.Conv2d(16, 32, 3, 2, 1))
        self.student = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.ReLU(), nn.Conv2d(16, 32, 3, 2, 1))
        kernel_size = 2 * int(4.0 * sigma + 0.5) + 1
        self.blur = GaussianBlur2d(kernel_size=(kernel_size, kernel_size), sigma=(float(sigma), float(sigma)))

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        t = F.normalize(self.teacher(image), dim=1)
        s = F.normalize(self.student(image), dim=1)
        distance = 1 - torch.sum(t * s, dim=1, keepdim=True)
        anomaly_map = F.interpolate(distance, size=image.shape[-2:], mode="bilinear", align_corners=False)
        return self.blur(anomaly_map)


def make_model():
    return AnomalyMapModel().eval()


def example_inputs():
    return (torch.rand(2, 3, 64, 64),)


def other_inputs():
    return [(torch.rand(3, 3, 80, 96),), (torch.rand(1, 3, 48, 72),)]


def probe_inputs():
    return other_inputs()
