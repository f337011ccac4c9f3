"""kornia `CenterCrop` (default cropping_mode="slice") builds its crop boxes with `center_crop_generator`
(a `torch.tensor` of Python ints from the image size, expanded over the batch) and crops with
`crop_by_indices`, which probes `len(x1.unique(sorted=False)) == ... == 1` to see whether all boxes are
identical and slices with `int(y1[i]) : int(y2[i])` per sample. The PR says the `unique()` probe and the
`int(coord_tensor[i])` indexing (an `.item()`) break torch.compile fullgraph, and slices from
`input.shape` instead. Trimmed to a classifier with a center-crop front end on variable-size images.

Source: https://github.com/kornia/kornia/pull/3809
"""
from typing import Dict, Optional, Tuple

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"images": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-35"


def resize(input, size, interpolation="bilinear", align_corners=None, side="short", antialias=False):
    return F.interpolate(input, size=size, mode=interpolation, align_corners=align_corners)


def center_crop_generator(batch_size: int, height: int, width: int, size: Tuple[int, int], device=None) -> Dict[str, torch.Tensor]:
    if device is None:
        device = torch.device("cpu")
    # unpack input sizes
    dst_h, dst_w = size
    src_h, src_w = height, width

    # compute start/end offsets
    dst_h_half = dst_h / 2
    dst_w_half = dst_w / 2
    src_h_half = src_h / 2
    src_w_half = src_w / 2

    start_x = int(src_w_half - dst_w_half)
    start_y = int(src_h_half - dst_h_half)

    end_x = start_x + dst_w - 1
    end_y = start_y + dst_h - 1

    # top-left, top-right, bottom-right, bottom-left
    points_src: torch.Tensor = torch.tensor(
        [[[start_x, start_y], [end_x, start_y], [end_x, end_y], [start_x, end_y]]], device=device, dtype=torch.long
    ).expand(batch_size, -1, -1)
    points_dst: torch.Tensor = torch.tensor(
        [[[0, 0], [dst_w - 1, 0], [dst_w - 1, dst_h - 1], [0, dst_h - 1]]], device=device, dtype=torch.long
    ).expand(batch_size, -1, -1)
    return {"src": points_src, "dst": points_dst}


def crop_by_indices(
    input_tensor: torch.Tensor,
    src_box: torch.Tensor,
    size: Optional[Tuple[int, int]] = None,
    interpolation: str = "bilinear",
    align_corners: Optional[bool] = None,
    antialias: bool = False,
    shape_compensation: str = "resize",
) -> torch.Tensor:
    B, C, _, _ = input_tensor.shape
    src = torch.as_tensor(src_box, device=input_tensor.device, dtype=torch.long)
    x1 = src[:, 0, 0]
    x2 = src[:, 1, 0] + 1
    y1 = src[:, 0, 1]
    y2 = src[:, 3, 1] + 1

    if (
        len(x1.unique(sorted=False))
        == len(x2.unique(sorted=False))
        == len(y1.unique(sorted=False))
        == len(y2.unique(sorted=False))
        == 1
    ):
        out = input_tensor[..., int(y1[0]) : int(y2[0]), int(x1[0]) : int(x2[0])]
        if size is not None and out.shape[-2:] != size:
            return resize(
                out, size, interpolation=interpolation, align_corners=align_corners, side="short", antialias=antialias
            )

    out = torch.empty(B, C, *size, device=input_tensor.device, dtype=input_tensor.dtype)
    # Find out the cropped shapes that need to be resized.
    for i, _ in enumerate(out):
        _out = input_tensor[i : i + 1, :, int(y1[i]) : int(y2[i]), int(x1[i]) : int(x2[i])]
        if _out.shape[-2:] != size:
            if shape_compensation == "resize":
                out[i] = resize(_out, size, interpolation=interpolation, align_corners=align_corners, side="short", antialias=antialias)
            else:
                out[i] = F.pad(_out, [0, size[1] - _out.shape[-1], 0, size[0] - _out.shape[-2]])
        else:
            out[i] = _out
    return out


class CenterCrop(nn.Module):
    def __init__(self, size: Tuple[int, int]):
        super().__init__()
        self.flags = {"size": size, "cropping_mode": "slice"}

    def forward(self, input):
        params = center_crop_generator(input.shape[0], input.shape[-2], input.shape[-1], self.flags["size"], input.device)
        if self.flags["cropping_mode"] == "slice":  # uses advanced slicing to crop
            return crop_by_indices(input, params["src"], self.flags["size"])
        raise NotImplementedError(f"Not supported type: {self.flags['cropping_mode']}.")


class CropClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.crop = CenterCrop((12, 12))
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.fc = nn.Linear(8 * 12 * 12, 4)

    def forward(self, images):
        x = self.crop(images)
        x = torch.relu(self.conv(x))
        return self.fc(x.flatten(1))


def make_model():
    return CropClassifier().eval()


def example_inputs():
    return (torch.rand(2, 3, 16, 20),)


def other_inputs():
    return [(torch.rand(3, 3, 24, 18),), (torch.rand(1, 3, 15, 31),)]


def probe_inputs():
    return other_inputs()
