"""kornia `Rescale(2)`: `rescale` computes `size = (int(height * factor_vert), int(width * factor_horz))` from
`input.size()[-2:]` and `resize` checks `if size == input_size: return input` before `F.interpolate`; the
export traces the sizes into Python ints (TracerWarning at `if size == input_size:`), so the exported
model does not work for any input shape as the report asks.

Source: https://github.com/kornia/kornia/issues/1681
"""
from typing import Optional, Tuple, Union

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "scalars"
DYNAMIC = {"input": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-12"


def _side_to_image_size(side_size: int, aspect_ratio: float, side: str = "short") -> Tuple[int, int]:
    if side == "vert":
        return side_size, int(side_size * aspect_ratio)
    if side == "horz":
        return int(side_size / aspect_ratio), side_size
    if (side == "short") ^ (aspect_ratio < 1.0):
        return side_size, int(side_size * aspect_ratio)
    return int(side_size / aspect_ratio), side_size


def resize(input: torch.Tensor, size: Union[int, Tuple[int, int]], interpolation: str = "bilinear",
           align_corners: Optional[bool] = None, side: str = "short") -> torch.Tensor:
    if not isinstance(input, torch.Tensor):
        raise TypeError(f"Input tensor type is not a torch.Tensor. Got {type(input)}")
    input_size = h, w = input.shape[-2:]
    if isinstance(size, int):
        aspect_ratio = w / h
        size = _side_to_image_size(size, aspect_ratio, side)
    if size == input_size:
        return input
    return torch.nn.functional.interpolate(input, size=size, mode=interpolation, align_corners=align_corners)


def rescale(input: torch.Tensor, factor: Union[float, Tuple[float, float]], interpolation: str = "bilinear",
            align_corners: Optional[bool] = None) -> torch.Tensor:
    if isinstance(factor, float):
        factor_vert = factor_horz = factor
    else:
        factor_vert, factor_horz = factor
    height, width = input.size()[-2:]
    size = (int(height * factor_vert), int(width * factor_horz))
    return resize(input, size, interpolation=interpolation, align_corners=align_corners)


class Rescale(nn.Module):
    def __init__(self, factor: Union[float, Tuple[float, float]], interpolation: str = "bilinear",
                 align_corners: bool = True) -> None:
        super().__init__()
        self.factor = factor
        self.interpolation = interpolation
        self.align_corners = align_corners

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return rescale(input, self.factor, self.interpolation, align_corners=self.align_corners)


def make_model():
    return Rescale(2.0)


def example_inputs():
    return (torch.rand(1, 3, 224, 224),)


def other_inputs():
    return [(torch.rand(2, 3, 160, 96),), (torch.rand(3, 3, 64, 200),)]


def probe_inputs():
    return other_inputs()
