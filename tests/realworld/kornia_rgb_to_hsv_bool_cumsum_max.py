"""A colour-augmentation block converts RGB to HSV with kornia's `rgb_to_hsv`, which picks the first
max channel via `maxc_mask.cumsum(-3)` and `.max(-3)` on boolean masks; the exported graph holds
CumSum (and Max) on tensor(bool), which onnxruntime rejects ("Type 'tensor(bool)' of input parameter
... of operator (CumSum) ... is invalid").

Source: https://github.com/kornia/kornia/issues/1327
"""
import math

import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-13"


def rgb_to_hsv(image: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    # The first or last occurance is not guarenteed before 1.6.0
    # https://github.com/pytorch/pytorch/issues/20414
    maxc, _ = image.max(-3)
    maxc_mask = image == maxc.unsqueeze(-3)
    _, max_indices = ((maxc_mask.cumsum(-3) == 1) & maxc_mask).max(-3)
    minc: torch.Tensor = image.min(-3)[0]

    v: torch.Tensor = maxc  # brightness

    deltac: torch.Tensor = maxc - minc
    s: torch.Tensor = deltac / (v + eps)

    # avoid division by zero
    deltac = torch.where(
        deltac == 0, torch.ones_like(deltac, device=deltac.device, dtype=deltac.dtype), deltac)

    maxc_tmp = maxc.unsqueeze(-3) - image
    rc: torch.Tensor = maxc_tmp[..., 0, :, :]
    gc: torch.Tensor = maxc_tmp[..., 1, :, :]
    bc: torch.Tensor = maxc_tmp[..., 2, :, :]

    h = torch.stack([
        bc - gc,
        2.0 * deltac + rc - bc,
        4.0 * deltac + gc - rc,
    ], dim=-3)

    h = torch.gather(h, dim=-3, index=max_indices[..., None, :, :])
    h = h.squeeze(-3)
    h = h / deltac

    h = (h / 6.0) % 1.0

    h = 2 * math.pi * h

    return torch.stack([h, s, v], dim=-3)


class rgb2hsv(nn.Module):
    def forward(self, image):

        hsv_tensor = rgb_to_hsv(image)

        return hsv_tensor


def make_model():
    return rgb2hsv().eval()


def example_inputs():
    return (torch.rand(1, 3, 30, 40),)


def other_inputs():
    return [(torch.rand(2, 3, 24, 36),), (torch.rand(3, 3, 17, 21),)]


def probe_inputs():
    return other_inputs()
