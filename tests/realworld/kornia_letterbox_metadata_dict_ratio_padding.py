"""kornia's proposed pure-torch `Letterbox` module (resize keeping aspect ratio, then centre pad to `new_shape`) used as
the preprocessing stage of a detector: its forward returns `(padded_image, metadata)` where metadata is a dict holding
the Python float `ratio = min(new_h / h, new_w / w)` and the int `padding` tuple, and the resize size is
`max(1, round(h * ratio))`; the reviewer notes that returning `(Tensor, dict)` from an nn.Module breaks nn.Sequential
and ONNX export (with dynamic height/width the Python `min`/`round` size math on the input shape fails first).

Source: https://github.com/kornia/kornia/pull/3936
"""
from typing import Optional, Tuple

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {2: "height", 3: "width"}}
BLIND = "domains-41"


def resize(input, size, interpolation="bilinear", align_corners=None, antialias=False):
    # kornia.geometry.transform.resize, trimmed to the interpolate call
    return torch.nn.functional.interpolate(
        input, size=size, mode=interpolation, align_corners=align_corners, antialias=antialias
    )


def letterbox(
    input: torch.Tensor,
    new_shape: Tuple[int, int],
    fill_value: float = 0.0,
    interpolation: str = "bilinear",
    align_corners: Optional[bool] = None,
    antialias: bool = False,
) -> Tuple[torch.Tensor, dict]:
    if not isinstance(input, torch.Tensor):
        raise TypeError(f"Input tensor type is not a torch.Tensor. Got {type(input)}")
    if len(input.shape) < 2:
        raise ValueError(f"Input tensor must have at least two dimensions. Got {len(input.shape)}")
    if new_shape[0] <= 0 or new_shape[1] <= 0:
        raise ValueError(f"new_shape dimensions must be strictly positive. Got {new_shape}")
    h, w = input.shape[-2:]
    new_h, new_w = new_shape
    ratio = min(new_h / h, new_w / w)
    # Use max(1, ...) to prevent 0-pixel dimensions on extreme aspect ratios
    unpad_h = max(1, round(h * ratio))
    unpad_w = max(1, round(w * ratio))
    resized_image = resize(
        input, size=(unpad_h, unpad_w), interpolation=interpolation, align_corners=align_corners, antialias=antialias
    )
    pad_h = new_h - unpad_h
    pad_w = new_w - unpad_w
    pad_top = pad_h // 2
    pad_bottom = pad_h - pad_top
    pad_left = pad_w // 2
    pad_right = pad_w - pad_left
    padded_image = torch.nn.functional.pad(
        resized_image,
        (pad_left, pad_right, pad_top, pad_bottom),
        value=fill_value,
    )
    metadata = {"ratio": ratio, "padding": (pad_left, pad_right, pad_top, pad_bottom)}
    return padded_image, metadata


class Letterbox(nn.Module):
    def __init__(self, new_shape, fill_value=0.0, interpolation="bilinear", align_corners=None, antialias=False):
        super().__init__()
        self.new_shape: Tuple[int, int] = new_shape
        self.fill_value: float = fill_value
        self.interpolation: str = interpolation
        self.align_corners: Optional[bool] = align_corners
        self.antialias: bool = antialias

    def forward(self, input: torch.Tensor) -> Tuple[torch.Tensor, dict]:
        return letterbox(
            input,
            self.new_shape,
            self.fill_value,
            self.interpolation,
            align_corners=self.align_corners,
            antialias=self.antialias,
        )


class LetterboxDetector(nn.Module):
    def __init__(self):
        super().__init__()
        self.letterbox = Letterbox((64, 64))
        self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(), nn.Conv2d(8, 6, 1))

    def forward(self, x):
        img, meta = self.letterbox(x)
        return self.backbone(img), meta


def make_model():
    return LetterboxDetector().eval()


def example_inputs():
    return (torch.rand(1, 3, 48, 96),)


def other_inputs():
    return [(torch.rand(1, 3, 100, 60),), (torch.rand(1, 3, 33, 40),)]


def probe_inputs():
    return other_inputs()
