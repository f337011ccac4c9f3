"""anomalib InferenceModel (transform + model exported together, input H/W dynamic): torchvision's CenterCrop
computes the crop anchor with `int(round((image_height - crop_height) / 2.0))` on the input size; the PR that put
transforms into the exported model had to replace it, as "the original function uses `round` to compute the anchor
point, which is not compatible with ONNX" (the crop offset is frozen to the export-time image size).

Source: https://github.com/open-edge-platform/anomalib/pull/1706
"""
import numbers
from typing import List, Tuple

import torch
from torch import nn
from torch.nn.functional import pad as torch_pad

CLASS = "size-branch"
FAMILY = "scalars"
DYNAMIC = {"batch": {0: "batch_size", 2: "height", 3: "weight"}}
BLIND = "domains-47"


# torchvision.transforms.v2.functional._geometry (v0.16.1)
def _center_crop_parse_output_size(output_size: List[int]) -> List[int]:
    if isinstance(output_size, numbers.Number):
        s = int(output_size)
        return [s, s]
    elif isinstance(output_size, (tuple, list)) and len(output_size) == 1:
        return [output_size[0], output_size[0]]
    else:
        return list(output_size)


def _center_crop_compute_padding(crop_height: int, crop_width: int, image_height: int, image_width: int) -> List[int]:
    return [
        (crop_width - image_width) // 2 if crop_width > image_width else 0,
        (crop_height - image_height) // 2 if crop_height > image_height else 0,
        (crop_width - image_width + 1) // 2 if crop_width > image_width else 0,
        (crop_height - image_height + 1) // 2 if crop_height > image_height else 0,
    ]


def _parse_pad_padding(padding: List[int]) -> List[int]:
    pad_left, pad_top, pad_right, pad_bottom = padding
    return [pad_left, pad_right, pad_top, pad_bottom]


def _center_crop_compute_crop_anchor(
    crop_height: int, crop_width: int, image_height: int, image_width: int
) -> Tuple[int, int]:
    crop_top = int(round((image_height - crop_height) / 2.0))
    crop_left = int(round((image_width - crop_width) / 2.0))
    return crop_top, crop_left


def center_crop_image(image: torch.Tensor, output_size: List[int]) -> torch.Tensor:
    crop_height, crop_width = _center_crop_parse_output_size(output_size)
    shape = image.shape
    if image.numel() == 0:
        return image.reshape(shape[:-2] + (crop_height, crop_width))
    image_height, image_width = shape[-2:]

    if crop_height > image_height or crop_width > image_width:
        padding_ltrb = _center_crop_compute_padding(crop_height, crop_width, image_height, image_width)
        image = torch_pad(image, _parse_pad_padding(padding_ltrb), value=0.0)

        image_height, image_width = image.shape[-2:]
        if crop_width == image_width and crop_height == image_height:
            return image

    crop_top, crop_left = _center_crop_compute_crop_anchor(crop_height, crop_width, image_height, image_width)
    return image[..., crop_top : (crop_top + crop_height), crop_left : (crop_left + crop_width)]


class CenterCrop(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.size = [size, size] if isinstance(size, int) else list(size)

    def forward(self, inpt: torch.Tensor) -> torch.Tensor:
        return center_crop_image(inpt, output_size=self.size)


class Normalize(nn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.mean, self.std = mean, std

    def forward(self, x):
        mean = torch.as_tensor(self.mean, dtype=x.dtype).view(-1, 1, 1)
        std = torch.as_tensor(self.std, dtype=x.dtype).view(-1, 1, 1)
        return (x - mean) / std


class TinyPadimLike(nn.Module):
    """Stand-in for the anomaly model: features -> per-pixel score map."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1))

    def forward(self, x):
        f = self.features(x)
        return f.pow(2).mean(dim=1, keepdim=True)


class InferenceModel(nn.Module):
    def __init__(self, model: nn.Module, transform: nn.Module) -> None:
        super().__init__()
        self.model = model
        self.transform = transform

    def forward(self, batch: torch.Tensor) -> torch.Tensor:
        """Transform the input batch and pass it through the model."""
        batch = self.transform(batch)
        return self.model(batch)


def make_model():
    transform = nn.Sequential(CenterCrop(64), Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]))
    return InferenceModel(model=TinyPadimLike(), transform=transform).eval()


def example_inputs():
    return (torch.rand(2, 3, 80, 96),)


def other_inputs():
    return [(torch.rand(3, 3, 71, 100),), (torch.rand(1, 3, 90, 77),)]


def probe_inputs():
    return other_inputs()
