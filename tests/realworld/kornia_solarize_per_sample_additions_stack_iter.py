"""kornia `solarize` (used by RandomSolarize) with per-sample 1-d `thresholds` and `additions`: it validates
`if not torch.all((additions < 0.5) * (additions > -0.5)): raise ...` and broadcasts each per-sample scalar
by iterating the tensor, `torch.stack([x.expand(*input.shape[-3:]) for x in additions])` (and the same
for `thresholds`). The PR says these three places break torch.compile(fullgraph=True) and replaces them
with `torch._assert_async` and a `view([-1] + [1] * (ndim - 1))` broadcast. Here a preprocessing model
takes the per-sample parameters as inputs.

Source: https://github.com/kornia/kornia/pull/3805
"""
from typing import Optional, Union

import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"images": {0: "batch", 2: "height", 3: "width"}, "thresholds": {0: "batch"}, "additions": {0: "batch"}}
BLIND = "domains-35"


def _solarize(input: torch.Tensor, thresholds: Union[float, torch.Tensor] = 0.5) -> torch.Tensor:
    if not isinstance(input, torch.Tensor):
        raise TypeError(f"Input type is not a torch.Tensor. Got {type(input)}")

    if not isinstance(thresholds, (float, torch.Tensor)):
        raise TypeError(f"The factor should be either a float or torch.Tensor. Got {type(thresholds)}")

    if isinstance(thresholds, torch.Tensor) and len(thresholds.shape) != 0:
        if not (input.size(0) == len(thresholds) and len(thresholds.shape) == 1):
            raise AssertionError(f"thresholds must be a 1-d vector of shape ({input.size(0)},). Got {thresholds}")
        # TODO: I am not happy about this line, but no easy to do batch-wise operation
        thresholds = thresholds.to(input.device).to(input.dtype)
        thresholds = torch.stack([x.expand(*input.shape[-3:]) for x in thresholds])

    return torch.where(input < thresholds, input, 1.0 - input)


def solarize(
    input: torch.Tensor,
    thresholds: Union[float, torch.Tensor] = 0.5,
    additions: Optional[Union[float, torch.Tensor]] = None,
) -> torch.Tensor:
    if not isinstance(input, torch.Tensor):
        raise TypeError(f"Input type is not a torch.Tensor. Got {type(input)}")

    if not isinstance(thresholds, (float, torch.Tensor)):
        raise TypeError(f"The factor should be either a float or torch.Tensor. Got {type(thresholds)}")

    if isinstance(thresholds, float):
        thresholds = torch.as_tensor(thresholds)

    if additions is not None:
        if not isinstance(additions, (float, torch.Tensor)):
            raise TypeError(f"The factor should be either a float or torch.Tensor. Got {type(additions)}")

        if isinstance(additions, float):
            additions = torch.as_tensor(additions)

        if not torch.all((additions < 0.5) * (additions > -0.5)):
            raise AssertionError(f"The value of 'addition' is between -0.5 and 0.5. Got {additions}.")

        if isinstance(additions, torch.Tensor) and len(additions.shape) != 0:
            if not (input.size(0) == len(additions) and len(additions.shape) == 1):
                raise AssertionError(f"additions must be a 1-d vector of shape ({input.size(0)},). Got {additions}")
            # TODO: I am not happy about this line, but no easy to do batch-wise operation
            additions = additions.to(input.device).to(input.dtype)
            additions = torch.stack([x.expand(*input.shape[-3:]) for x in additions])
        input = input + additions
        input = input.clamp(0.0, 1.0)

    return _solarize(input, thresholds)


class SolarizeAugmentedEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.proj = nn.Linear(8, 6)

    def forward(self, images, thresholds, additions):
        x = solarize(images, thresholds, additions)
        x = torch.relu(self.conv(x))
        return self.proj(x.mean(dim=(2, 3)))


def make_model():
    return SolarizeAugmentedEncoder().eval()


def example_inputs():
    return (torch.rand(2, 3, 16, 16), torch.tensor([0.8, 0.5]), torch.tensor([-0.25, 0.25]))


def other_inputs():
    return [
        (torch.rand(3, 3, 20, 12), torch.tensor([0.3, 0.6, 0.9]), torch.tensor([0.1, -0.4, 0.0])),
        (torch.rand(1, 3, 9, 14), torch.tensor([0.45]), torch.tensor([0.2])),
    ]


def probe_inputs():
    return other_inputs()
