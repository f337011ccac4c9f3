"""kornia.morphology.opening (erosion then dilation, default engine='unfold') on an image batch: each
op pads the image and takes the min/max over `output.unfold(2, se_h, 1).unfold(3, se_w, 1)` windows;
torch.onnx.export fails on the unfold ("torch.onnx.export does not support unfold (aka im2col)").

Source: https://github.com/pytorch/pytorch/issues/123287
"""
from typing import List, Optional

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-4"


def dilation(
    tensor: torch.Tensor,
    kernel: torch.Tensor,
    structuring_element: Optional[torch.Tensor] = None,
    origin: Optional[List[int]] = None,
    border_type: str = 'geodesic',
    border_value: float = 0.0,
    max_val: float = 1e4,
    engine: str = 'unfold',
) -> torch.Tensor:
    # origin
    se_h, se_w = kernel.shape
    if origin is None:
        origin = [se_h // 2, se_w // 2]

    # pad
    pad_e: List[int] = [origin[1], se_w - origin[1] - 1, origin[0], se_h - origin[0] - 1]
    if border_type == 'geodesic':
        border_value = -max_val
        border_type = 'constant'
    output: torch.Tensor = F.pad(tensor, pad_e, mode=border_type, value=border_value)

    # computation
    if structuring_element is None:
        neighborhood = torch.zeros_like(kernel)
        neighborhood[kernel == 0] = -max_val
    else:
        neighborhood = structuring_element.clone()
        neighborhood[kernel == 0] = -max_val

    if engine == 'unfold':
        output = output.unfold(2, se_h, 1).unfold(3, se_w, 1)
        output, _ = torch.max(output + neighborhood.flip((0, 1)), 4)
        output, _ = torch.max(output, 4)
    else:
        raise NotImplementedError(f"engine {engine} is unknown, use 'convolution' or 'unfold'")
    return output.view_as(tensor)


def erosion(
    tensor: torch.Tensor,
    kernel: torch.Tensor,
    structuring_element: Optional[torch.Tensor] = None,
    origin: Optional[List[int]] = None,
    border_type: str = 'geodesic',
    border_value: float = 0.0,
    max_val: float = 1e4,
    engine: str = 'unfold',
) -> torch.Tensor:
    # origin
    se_h, se_w = kernel.shape
    if origin is None:
        origin = [se_h // 2, se_w // 2]

    # pad
    pad_e: List[int] = [origin[1], se_w - origin[1] - 1, origin[0], se_h - origin[0] - 1]
    if border_type == 'geodesic':
        border_value = max_val
        border_type = 'constant'
    output: torch.Tensor = F.pad(tensor, pad_e, mode=border_type, value=border_value)

    # computation
    if structuring_element is None:
        neighborhood = torch.zeros_like(kernel)
        neighborhood[kernel == 0] = -max_val
    else:
        neighborhood = structuring_element.clone()
        neighborhood[kernel == 0] = -max_val

    if engine == 'unfold':
        output = output.unfold(2, se_h, 1).unfold(3, se_w, 1)
        output, _ = torch.min(output - neighborhood, 4)
        output, _ = torch.min(output, 4)
    else:
        raise NotImplementedError(f"engine {engine} is unknown, use 'convolution' or 'unfold'")
    return output


def opening(tensor, kernel, structuring_element=None, origin=None, border_type='geodesic',
            border_value=0.0, max_val=1e4, engine='unfold'):
    return dilation(
        erosion(tensor, kernel=kernel, structuring_element=structuring_element, origin=origin,
                border_type=border_type, border_value=border_value, max_val=max_val, engine=engine),
        kernel=kernel, structuring_element=structuring_element, origin=origin,
        border_type=border_type, border_value=border_value, max_val=max_val, engine=engine)


class MaskOpening(nn.Module):
    """Foreground mask prediction cleaned with a morphological opening (3x3 cross)."""

    def __init__(self):
        super().__init__()
        self.head = nn.Conv2d(3, 1, 3, padding=1)
        self.register_buffer("kernel", torch.tensor([[0., 1., 0.], [1., 1., 1.], [0., 1., 0.]]))

    def forward(self, image):
        prob = torch.sigmoid(self.head(image))
        return opening(prob, self.kernel)


def make_model():
    return MaskOpening().eval()


def example_inputs():
    return (torch.randn(2, 3, 32, 48),)


def other_inputs():
    return [(torch.randn(3, 3, 40, 24),), (torch.randn(1, 3, 17, 29),)]


def probe_inputs():
    return other_inputs()
