"""kornia `equalize` (batched `_scale_channel_batched`) as it was before kornia PR #3841: the input range is
validated with `min_.item() < 0.0` / `max_.item() > 1.0` Python checks that raise ValueError; the PR says
these data-dependent branches broke torch.compile fullgraph (and force device syncs).

Source: https://github.com/kornia/kornia/pull/3841
"""
from functools import wraps
from typing import Any, Callable

import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-37"


def _to_bchw(tensor: torch.Tensor) -> torch.Tensor:
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"Input type is not a torch.Tensor. Got {type(tensor)}")
    if len(tensor.shape) < 2:
        raise ValueError(f"Input size must be a two, three or four dimensional tensor. Got {tensor.shape}")
    if len(tensor.shape) == 2:
        tensor = tensor.unsqueeze(0)
    if len(tensor.shape) == 3:
        tensor = tensor.unsqueeze(0)
    if len(tensor.shape) > 4:
        tensor = tensor.view(-1, tensor.shape[-3], tensor.shape[-2], tensor.shape[-1])
    return tensor


def perform_keep_shape_image(f: Callable[..., torch.Tensor]) -> Callable[..., torch.Tensor]:
    @wraps(f)
    def _wrapper(input: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
        if not isinstance(input, torch.Tensor):
            raise TypeError(f"Input input type is not a torch.Tensor. Got {type(input)}")

        if input.shape.numel() == 0:
            raise ValueError("Invalid input tensor, it is empty.")

        input_shape = input.shape
        input = _to_bchw(input)  # view input as (B, C, H, W)
        output = f(input, *args, **kwargs)
        if len(input_shape) == 3:
            output = output[0]

        if len(input_shape) == 2:
            output = output[0, 0]

        if len(input_shape) > 4:
            output = output.view(*(input_shape[:-3] + output.shape[-3:]))

        return output

    return _wrapper


def _scale_channel_batched(input: torch.Tensor) -> torch.Tensor:
    shape = input.shape
    n = shape[0] * shape[1]
    scaled = input.reshape(n, -1) * 255.0  # (N, P)

    min_, max_ = input.min(), input.max()
    if min_.item() < 0.0 and not torch.isclose(min_, torch.as_tensor(0.0, dtype=min_.dtype)):
        raise ValueError(f"Values in the input torch.Tensor must greater or equal to 0.0. Found {min_.item()}.")
    if max_.item() > 1.0 and not torch.isclose(max_, torch.as_tensor(1.0, dtype=max_.dtype)):
        raise ValueError(f"Values in the input torch.Tensor must lower or equal to 1.0. Found {max_.item()}.")

    # Per-plane 256-bin histogram matching ``torch.histc(x, 256, 0, 255)`` bin placement.
    bins = torch.clamp((scaled * (256.0 / 255.0)).floor().long(), 0, 255)
    histo = torch.zeros(n, 256, device=input.device, dtype=scaled.dtype)
    histo.scatter_add_(1, bins, torch.ones_like(scaled))

    # step = (sum(nonzero) - last_nonzero) // 255, per plane.
    total = histo.sum(1)
    ar = torch.arange(256, device=input.device)
    last_idx = torch.where(histo > 0, ar, torch.zeros_like(ar)).amax(1)
    last_count = histo.gather(1, last_idx.unsqueeze(1)).squeeze(1)
    step = torch.div(total - last_count, 255, rounding_mode="trunc")  # (N,)

    step_col = step.unsqueeze(1)
    step_trunc = torch.div(step, 2, rounding_mode="trunc").unsqueeze(1)
    lut = torch.div(histo.cumsum(1) + step_trunc, step_col.clamp(min=1), rounding_mode="trunc")
    lut = torch.cat([torch.zeros(n, 1, device=input.device, dtype=lut.dtype), lut[:, :-1]], 1)
    lut = torch.clamp(lut, 0, 255)

    result = lut.gather(1, scaled.long())
    result = torch.where(step_col == 0, scaled, result)
    return (result / 255.0).reshape(shape)


@perform_keep_shape_image
def equalize(input: torch.Tensor) -> torch.Tensor:
    # Scales each channel independently, batched over (B, C) in a single pass.
    return _scale_channel_batched(input)


class EqualizeClassifier(nn.Module):
    """Histogram-equalize the input image, then a small CNN classifier."""

    def __init__(self, num_classes=5):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.fc = nn.Linear(32, num_classes)

    def forward(self, image):
        image = equalize(image)
        return self.fc(self.features(image))


def make_model():
    return EqualizeClassifier().eval()


def example_inputs():
    return (torch.rand(2, 3, 32, 32),)


def other_inputs():
    return [(torch.rand(3, 3, 40, 24),), (torch.rand(1, 3, 20, 48) * 0.5,)]


def probe_inputs():
    return other_inputs()
