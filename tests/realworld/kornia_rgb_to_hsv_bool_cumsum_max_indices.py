"""kornia `rgb_to_hsv` (used as `kornia.color.RgbToHsv` in front of a small colour-feature network): to pick the
first channel holding the maximum it builds the bool mask `maxc_mask = image == maxc.unsqueeze(-3)` and runs
`maxc_mask.cumsum(-3)` and `(... & maxc_mask).max(-3)` on bool tensors; the PR "Fix rgb_to_hsv for onnx" adds an
ONNX test for RgbToHsv and replaces this with `img.max(-3)` returning the argmax (the bool CumSum / Max have no
onnxruntime kernel).

Source: https://github.com/kornia/kornia/pull/1329
"""
import math

import torch
import torch.nn as nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-54"


def rgb_to_hsv(image: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    if not isinstance(image, torch.Tensor):
        raise TypeError(f"Input type is not a torch.Tensor. Got {type(image)}")

    if len(image.shape) < 3 or image.shape[-3] != 3:
        raise ValueError(f"Input size must have a shape of (*, 3, H, W). Got {image.shape}")

    # The first or last occurrence is not guaranteed before 1.6.0
    # https://github.com/pytorch/pytorch/issues/20414
    maxc, _ = image.max(-3)
    maxc_mask = image == maxc.unsqueeze(-3)
    _, max_indices = ((maxc_mask.cumsum(-3) == 1) & maxc_mask).max(-3)
    minc: torch.Tensor = image.min(-3)[0]

    v: torch.Tensor = maxc  # brightness

    deltac: torch.Tensor = maxc - minc
    s: torch.Tensor = deltac / (v + eps)

    # avoid division by zero
    deltac = torch.where(deltac == 0, torch.ones_like(deltac, device=deltac.device, dtype=deltac.dtype), deltac)

    maxc_tmp = maxc.unsqueeze(-3) - image
    rc: torch.Tensor = maxc_tmp[..., 0, :, :]
    gc: torch.Tensor = maxc_tmp[..., 1, :, :]
    bc: torch.Tensor = maxc_tmp[..., 2, :, :]

    h = torch.stack([bc - gc, 2.0 * deltac + rc - bc, 4.0 * deltac + gc - rc], dim=-3)

    h = torch.gather(h, dim=-3, index=max_indices[..., None, :, :])
    h = h.squeeze(-3)
    h = h / deltac

    h = (h / 6.0) % 1.0

    h = 2 * math.pi * h

    return torch.stack([h, s, v], dim=-3)


class RgbToHsv(nn.Module):
    def __init__(self, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        return rgb_to_hsv(image, self.eps)


class HsvColorNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.to_hsv = RgbToHsv()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 4, 1))

    def forward(self, image):
        return self.features(self.to_hsv(image))


def make_model():
    return HsvColorNet().eval()


def example_inputs():
    return (torch.rand(2, 3, 32, 32),)


def other_inputs():
    return [(torch.rand(3, 3, 24, 40),), (torch.rand(1, 3, 48, 20),)]


def probe_inputs():
    return other_inputs()
