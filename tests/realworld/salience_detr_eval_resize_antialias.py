"""Salience-DETR's ONNX-friendly `EvalResize` rescales the input image so its short side hits `min_size` and
resizes it with `antialias=True` (bilinear); "Exporting the operator 'aten::_upsample_bilinear2d_aa' to ONNX
opset version 17 is not supported" (the maintainer's answer: set antialias to False).

Source: https://github.com/xiuqhou/Salience-DETR/issues/17
"""
from typing import Optional

import torch
from torch import Tensor, nn
from torch.nn import functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"image": {1: "height", 2: "width"}}
BLIND = "operators-2"


def _is_tracing():
    return torch._C._get_tracing_state()


class EvalResize(nn.Module):
    """Resize transform friendly to ONNX and torchscript"""
    def __init__(
        self,
        min_size: int,
        max_size: Optional[int] = None,
        interpolation: str = "bilinear",
        antialias: Optional[bool] = True,
    ):
        super().__init__()
        assert isinstance(min_size, int) and isinstance(max_size, int)
        self.min_size = min_size
        self.max_size = max_size
        self.interpolation = interpolation
        self.antialias = antialias

    def forward(self, image: Tensor):
        assert isinstance(image, Tensor), "Only one image Tensor is supported"
        if _is_tracing():
            from torch.onnx import operators
            orig_height, orig_width = operators.shape_as_tensor(image)[-2:]
        else:
            orig_height, orig_width = torch.tensor(image.shape[-2:])

        r = self.min_size / torch.min(orig_height, orig_width)
        if self.max_size is not None:
            r = torch.min(r, self.max_size / torch.max(orig_height, orig_width))

        new_width = (orig_width * r).to(orig_width.dtype)
        new_height = (orig_height * r).to(orig_width.dtype)

        return F.interpolate(
            image[None], size=(new_height, new_width), mode=self.interpolation, antialias=self.antialias
        )[0]


class Preprocess(nn.Module):
    def __init__(self, min_size=32, max_size=48):
        super().__init__()
        size = [s for s in (min_size, max_size) if isinstance(s, (int, float))]
        self.eval_transform = EvalResize(min(size), max(size), antialias=True)
        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1))
        self.register_buffer("std", torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1))

    def forward(self, image):
        image = self.eval_transform(image)
        return (image - self.mean) / self.std


def make_model():
    return Preprocess().eval()


def example_inputs():
    return (torch.rand(3, 64, 80),)


def other_inputs():
    return [(torch.rand(3, 96, 72),), (torch.rand(3, 50, 120),)]


def probe_inputs():
    return other_inputs()
