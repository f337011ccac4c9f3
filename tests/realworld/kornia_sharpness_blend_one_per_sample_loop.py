"""kornia `sharpness` (used by RandomSharpness / AutoAugment) with a per-sample 1-d `factor`: it blends
the sharpened and original image with a Python loop over the batch
(`torch.stack([_blend_one(result[i], input[i], factor[i]) for i in range(len(factor))])`) and
`_blend_one` branches on the factor's value (`if factor == 0.0`, `if factor == 1.0`,
`if factor > 0.0 and factor < 1.0`). The PR says both graph-break torch.compile(fullgraph=True) and
replaces them with one branchless broadcast blend. Here a preprocessing model takes the per-sample factor.

Source: https://github.com/kornia/kornia/pull/3790
"""
from typing import Union

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"images": {0: "batch", 2: "height", 3: "width"}, "factor": {0: "batch"}}
BLIND = "domains-35"


def sharpness(input: torch.Tensor, factor: Union[float, torch.Tensor]) -> torch.Tensor:
    if not isinstance(factor, torch.Tensor):
        factor = torch.as_tensor(factor, device=input.device, dtype=input.dtype)

    if len(factor.size()) != 0 and factor.shape != torch.Size([input.size(0)]):
        raise AssertionError(
            "Input batch size shall match with factor size if factor is not a 0-dim torch.Tensor. "
            f"Got {input.size(0)} and {factor.shape}"
        )

    kernel = (
        torch.as_tensor([[1, 1, 1], [1, 5, 1], [1, 1, 1]], dtype=input.dtype, device=input.device)
        .view(1, 1, 3, 3)
        .repeat(input.size(1), 1, 1, 1)
        / 13
    )

    # This shall be equivalent to depthwise conv2d:
    degenerate = torch.nn.functional.conv2d(input, kernel, bias=None, stride=1, groups=input.size(1))
    degenerate = torch.clamp(degenerate, 0.0, 1.0)

    # For the borders of the resulting image, fill in the values of the original image.
    mask = torch.ones_like(degenerate)
    padded_mask = F.pad(mask, [1, 1, 1, 1])
    padded_degenerate = F.pad(degenerate, [1, 1, 1, 1])
    result = torch.where(padded_mask == 1, padded_degenerate, input)

    if len(factor.size()) == 0:
        return _blend_one(result, input, factor)
    return torch.stack([_blend_one(result[i], input[i], factor[i]) for i in range(len(factor))])


def _blend_one(input1: torch.Tensor, input2: torch.Tensor, factor: torch.Tensor) -> torch.Tensor:
    if not isinstance(input1, torch.Tensor):
        raise AssertionError(f"`input1` must be a torch.Tensor. Got {input1}.")
    if not isinstance(input2, torch.Tensor):
        raise AssertionError(f"`input1` must be a torch.Tensor. Got {input2}.")

    if isinstance(factor, torch.Tensor) and len(factor.size()) != 0:
        raise AssertionError(f"Factor shall be a float or single element torch.Tensor. Got {factor}.")
    if factor == 0.0:
        return input1
    if factor == 1.0:
        return input2
    diff = (input2 - input1) * factor
    res = input1 + diff
    if factor > 0.0 and factor < 1.0:
        return res
    return torch.clamp(res, 0, 1)


class SharpenThenClassify(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.head = nn.Linear(8, 5)

    def forward(self, images, factor):
        x = sharpness(images, factor)
        x = torch.relu(self.stem(x))
        return self.head(x.mean(dim=(2, 3)))


def make_model():
    return SharpenThenClassify().eval()


def example_inputs():
    return (torch.rand(2, 3, 16, 16), torch.tensor([0.3, 1.7]))


def other_inputs():
    return [
        (torch.rand(3, 3, 20, 24), torch.tensor([0.0, 0.6, 1.0])),
        (torch.rand(1, 3, 12, 10), torch.tensor([2.5])),
    ]


def probe_inputs():
    return other_inputs()
