"""kornia's `augmentation.Resize(size=[72, 170])` used as a preprocessing module (`nn.Sequential(K.augmentation.Resize(...))`)
on a CHW image: its ResizeGenerator builds the source box with `torch.tensor(input_size[1])` from the input shape, and
`apply_transform` crops each sample with `x2 = int(params["src"][i, 1, 0]) + 1` / `y2 = int(params["src"][i, 3, 1]) + 1`
in a `for i in range(B)` loop into `torch.empty(B, C, *out_size)` before `resize`; the reporter's exported graph loses
its inferred shapes and carries the sizes as constants (a Reshape to `[3, 72, 170]` from resize.py).

Source: https://github.com/kornia/kornia/issues/1969
"""
from typing import Dict, Tuple

import torch
from torch import Tensor, nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"input": {1: "height", 2: "width"}}
BLIND = "domains-41"


def bbox_generator(x_start: Tensor, y_start: Tensor, width: Tensor, height: Tensor) -> Tensor:
    bbox = torch.tensor([[[0, 0], [0, 0], [0, 0], [0, 0]]], device=x_start.device, dtype=x_start.dtype).repeat(
        1 if x_start.dim() == 0 else len(x_start), 1, 1
    )
    bbox[:, :, 0] += x_start.view(-1, 1)
    bbox[:, :, 1] += y_start.view(-1, 1)
    bbox[:, 1, 0] += width - 1
    bbox[:, 2, 0] += width - 1
    bbox[:, 2, 1] += height - 1
    bbox[:, 3, 1] += height - 1
    return bbox


def resize(input: Tensor, size: Tuple[int, int], interpolation: str = 'bilinear', align_corners=None) -> Tensor:
    # kornia.geometry.transform.resize (antialias branch trimmed, antialias=False)
    input_size = h, w = input.shape[-2:]
    if size == input_size:
        return input
    return torch.nn.functional.interpolate(input, size=size, mode=interpolation, align_corners=align_corners)


class ResizeGenerator(nn.Module):
    def __init__(self, resize_to: Tuple[int, int], side: str = "short") -> None:
        super().__init__()
        self.output_size = resize_to
        self.side = side
        self.device = None
        self.dtype = torch.float32

    def forward(self, batch_shape: torch.Size, same_on_batch: bool = False) -> Dict[str, Tensor]:
        batch_size = batch_shape[0]
        _device = self.device
        _dtype = self.dtype
        input_size = h, w = (batch_shape[-2], batch_shape[-1])

        src = bbox_generator(
            torch.tensor(0, device=_device, dtype=_dtype),
            torch.tensor(0, device=_device, dtype=_dtype),
            torch.tensor(input_size[1], device=_device, dtype=_dtype),
            torch.tensor(input_size[0], device=_device, dtype=_dtype),
        ).repeat(batch_size, 1, 1)

        dst = bbox_generator(
            torch.tensor(0, device=_device, dtype=_dtype),
            torch.tensor(0, device=_device, dtype=_dtype),
            torch.tensor(self.output_size[1], device=_device, dtype=_dtype),
            torch.tensor(self.output_size[0], device=_device, dtype=_dtype),
        ).repeat(batch_size, 1, 1)

        _input_size = torch.tensor(input_size, device=_device, dtype=torch.long).expand(batch_size, -1)
        _output_size = torch.tensor(self.output_size, device=_device, dtype=torch.long).expand(batch_size, -1)

        return dict(src=src, dst=dst, input_size=_input_size, output_size=_output_size)


class Resize(nn.Module):
    """kornia.augmentation.Resize (v0.6.8), with the augmentation base reduced to: add batch dim, generate, apply."""

    def __init__(self, size, side: str = "short", align_corners: bool = True) -> None:
        super().__init__()
        self._param_generator = ResizeGenerator(resize_to=size, side=side)
        self.flags = dict(size=size, side=side, resample="bilinear", align_corners=align_corners)

    def apply_transform(self, input: Tensor, params: Dict[str, Tensor], flags) -> Tensor:
        B, C, _, _ = input.shape
        out_size = tuple(params["output_size"][0].tolist())
        out = torch.empty(B, C, *out_size, device=input.device, dtype=input.dtype)

        for i in range(B):
            x1 = int(params["src"][i, 0, 0])
            x2 = int(params["src"][i, 1, 0]) + 1
            y1 = int(params["src"][i, 0, 1])
            y2 = int(params["src"][i, 3, 1]) + 1
            out[i] = resize(
                input[i : i + 1, :, y1:y2, x1:x2],
                out_size,
                interpolation=flags["resample"],
                align_corners=flags["align_corners"],
            )
        return out

    def forward(self, input: Tensor) -> Tensor:
        if len(input.shape) == 3:  # _transform_input: (C, H, W) -> (1, C, H, W)
            input = input.unsqueeze(0)
        params = self._param_generator(input.shape)
        return self.apply_transform(input, params, self.flags)


def make_model():
    return nn.Sequential(Resize(size=[72, 170])).eval()


def example_inputs():
    return (torch.rand(3, 120, 200),)


def other_inputs():
    return [(torch.rand(3, 240, 320),), (torch.rand(3, 90, 150),)]


def probe_inputs():
    return other_inputs()
