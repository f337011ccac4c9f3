"""kornia `adjust_contrast` validates a per-sample contrast factor with
`KORNIA_CHECK(any(factor >= 0), "Contrast factor must be positive.")` (Python `any()` over a tensor, then
`if not condition: raise`); kornia's PR says it graph-broke under torch.compile at this data-dependent check.

Source: https://github.com/kornia/kornia/pull/3787
"""
from typing import Optional, Union

import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}, "factor": {0: "batch"}}
BLIND = "domains-36"

_KORNIA_CHECKS_ENABLED = True


class BaseError(Exception):
    pass


def KORNIA_CHECK(condition: bool, msg: Optional[str] = None, raises: bool = True) -> bool:
    if not torch.jit.is_scripting():
        if not _KORNIA_CHECKS_ENABLED:
            return True

    if not condition:
        if raises:
            raise BaseError(f"{condition} not true.\n{msg}")
        return False
    return True


def adjust_contrast(image: torch.Tensor, factor: Union[float, torch.Tensor], clip_output: bool = True) -> torch.Tensor:
    KORNIA_CHECK(isinstance(factor, (float, torch.Tensor)), "Factor should be float or torch.Tensor.")

    if isinstance(factor, float):
        factor = torch.as_tensor(factor, device=image.device, dtype=image.dtype)
    elif isinstance(factor, torch.Tensor):
        factor = factor.to(image.device, image.dtype)

    # make factor broadcastable
    while len(factor.shape) != len(image.shape):
        factor = factor[..., None]

    KORNIA_CHECK(any(factor >= 0), "Contrast factor must be positive.")

    # Apply contrast factor to each channel
    img_adjust: torch.Tensor = image * factor

    # Truncate between pixel values
    if clip_output:
        img_adjust = img_adjust.clamp(min=0.0, max=1.0)

    return img_adjust


class ContrastThenSegment(nn.Module):
    """Per-image contrast adjustment (factor given per sample) in front of a small segmentation head."""

    def __init__(self, num_classes=4):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, num_classes, 1))

    def forward(self, image, factor):
        image = adjust_contrast(image, factor)
        return self.net(image)


def make_model():
    return ContrastThenSegment().eval()


def example_inputs():
    return (torch.rand(2, 3, 32, 32), torch.rand(2) + 0.5)


def other_inputs():
    return [(torch.rand(3, 3, 24, 40), torch.rand(3) + 0.5), (torch.rand(1, 3, 48, 20), torch.rand(1) + 0.5)]


def probe_inputs():
    return other_inputs()
