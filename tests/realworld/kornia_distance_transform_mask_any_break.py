"""kornia `DistanceTransform` (cascaded-convolution approximation of the Euclidean distance transform): the
iteration loop `for i in range(n_iters)` exits early with `if not mask.any(): break` once no pixel changes; the
PR says this data-dependent early exit graph-breaks torch.compile(fullgraph=True) and guards it out under
compile (the loop count itself comes from `math.ceil(max(H, W) / k_half)`).

Source: https://github.com/kornia/kornia/pull/3788
"""
import math

import torch
from torch import nn
import torch.nn.functional as F

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-34"


def create_meshgrid(height, width, normalized_coordinates=False, device=None, dtype=None):
    xs = torch.linspace(0, width - 1, width, device=device, dtype=dtype)
    ys = torch.linspace(0, height - 1, height, device=device, dtype=dtype)
    base_grid = torch.stack(torch.meshgrid([xs, ys], indexing="ij"), dim=-1)  # WxHx2
    return base_grid.permute(1, 0, 2).unsqueeze(0)  # 1xHxWx2


def filter2d(input, kernel, border_type="reflect"):
    b, c, h, w = input.shape
    tmp_kernel = kernel[:, None, ...].to(device=input.device, dtype=input.dtype)
    tmp_kernel = tmp_kernel.expand(-1, c, -1, -1)
    height, width = tmp_kernel.shape[-2:]
    padding_shape = [(width - 1) // 2, width // 2, (height - 1) // 2, height // 2]
    input = F.pad(input, padding_shape, mode=border_type)
    tmp_kernel = tmp_kernel.reshape(-1, 1, height, width)
    input = input.view(-1, tmp_kernel.size(0), input.size(-2), input.size(-1))
    output = F.conv2d(input, tmp_kernel, groups=tmp_kernel.size(0), padding=0, stride=1)
    return output.view(b, c, h, w)


def _distance_transform_2d_impl(image: torch.Tensor, kernel_size: int, h: float) -> torch.Tensor:
    device = image.device
    dtype = image.dtype
    k_half = kernel_size // 2

    n_iters = math.ceil(max(image.shape[2], image.shape[3]) / k_half)
    grid = create_meshgrid(kernel_size, kernel_size, False, device, dtype)
    grid = grid - k_half

    dist = torch.hypot(grid[0, ..., 0], grid[0, ..., 1])
    kernel = torch.exp(-dist / h).unsqueeze(0)

    out = torch.zeros_like(image)
    boundary = image.clone()
    signal_ones = torch.ones_like(boundary)

    for i in range(n_iters):
        cdt = filter2d(boundary, kernel, border_type="replicate")
        cdt = -h * torch.log(cdt)
        cdt = torch.nan_to_num(cdt, nan=0.0, posinf=0.0, neginf=0.0)

        mask = cdt > 0
        if not mask.any():
            break

        offset: int = i * k_half
        out = out + (offset + cdt) * mask.to(dtype=out.dtype)
        boundary = torch.where(mask, signal_ones, boundary)

    return out


class DistanceTransform(nn.Module):
    def __init__(self, kernel_size: int = 3, h: float = 0.35) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.h = h

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        if image.shape[1] > 1:
            spatial_dims = image.shape[2:]
            image_in = image.reshape(-1, 1, *spatial_dims)
        else:
            image_in = image
        return _distance_transform_2d_impl(image_in, self.kernel_size, self.h).view_as(image)


def make_model():
    return DistanceTransform().eval()


def _sparse(b, h, w, p):
    return (torch.rand(b, 1, h, w) > p).float()


def example_inputs():
    return (_sparse(2, 32, 32, 0.97),)


def other_inputs():
    return [(_sparse(3, 40, 48, 0.995),), (_sparse(1, 24, 20, 0.9),)]


def probe_inputs():
    return other_inputs()
