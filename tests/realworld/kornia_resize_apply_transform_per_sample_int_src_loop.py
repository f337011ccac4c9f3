"""kornia `Resize` augmentation (before the PR): `apply_transform` loops `for i in range(B)` over the batch,
reads each sample's source box with `int(params["src"][i, 0, 0])` ... (box built by `ResizeGenerator` from the
input size), slices `input[i : i + 1, :, y1:y2, x1:x2]`, resizes it to `tuple(params["output_size"][0].tolist())`
and writes `out[i]`; the PR replaces this loop because it is not torch.compile fullgraph-safe.

Source: https://github.com/kornia/kornia/pull/3800
"""
from typing import Dict, Tuple, Union

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-36"


def bbox_generator(
    x_start: torch.Tensor, y_start: torch.Tensor, width: torch.Tensor, height: torch.Tensor
) -> torch.Tensor:
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


class ResizeGenerator(nn.Module):
    def __init__(self, resize_to: Tuple[int, int]) -> None:
        super().__init__()
        self.output_size = resize_to
        self.device = torch.device("cpu")
        self.dtype = torch.float32

    def forward(self, batch_shape: Tuple[int, ...]) -> Dict[str, torch.Tensor]:
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

        output_size = self.output_size
        _output_size = torch.tensor(output_size, device=_device, dtype=torch.long).expand(batch_size, -1)
        return {"src": src, "output_size": _output_size}


class Resize(nn.Module):
    def __init__(self, size: Tuple[int, int], align_corners: bool = True) -> None:
        super().__init__()
        self._param_generator = ResizeGenerator(resize_to=size)
        self.flags = {"size": size, "align_corners": align_corners}

    def apply_transform(self, input: torch.Tensor, params: Dict[str, torch.Tensor], flags) -> torch.Tensor:
        B, C, _, _ = input.shape
        out_size = tuple(params["output_size"][0].tolist())
        out = torch.empty(B, C, *out_size, device=input.device, dtype=input.dtype)

        for i in range(B):
            x1 = int(params["src"][i, 0, 0])
            x2 = int(params["src"][i, 1, 0]) + 1
            y1 = int(params["src"][i, 0, 1])
            y2 = int(params["src"][i, 3, 1]) + 1
            out[i] = F.interpolate(
                input[i : i + 1, :, y1:y2, x1:x2],
                out_size,
                mode="bilinear",
                align_corners=flags["align_corners"],
            )
        return out

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        params = self._param_generator(input.shape)
        return self.apply_transform(input, params, self.flags)


class ResizeThenClassify(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.resize = Resize((32, 32))
        self.net = nn.Sequential(
            nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
            nn.Linear(8, num_classes))

    def forward(self, x):
        return self.net(self.resize(x))


def make_model():
    return ResizeThenClassify().eval()


def example_inputs():
    return (torch.rand(2, 3, 48, 64),)


def other_inputs():
    return [(torch.rand(3, 3, 40, 30),), (torch.rand(1, 3, 72, 56),)]


def probe_inputs():
    return other_inputs()
