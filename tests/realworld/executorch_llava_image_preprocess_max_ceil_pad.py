"""ExecuTorch's Llava example (examples/models/llava/model.py) pads the raw (3, H, W) image to a square
in `image_preprocess`: `w = max(img.shape[1], img.shape[2])`, paddings from `math.ceil`/`math.floor` of
`(w - img.shape[1]) / 2`, then torchvision v2 `F.pad` with a per-channel `fill` (which branches on
`top > 0`, ... and writes the borders). PR "[llava] Enable dynamic shape for image preprocessor" says
the export was specializing the image size on the example image and rewrites the paddings with `//` and
`torch._check`. Trimmed to the preprocessor plus a tiny patch encoder and projector, at varying image sizes.

Source: https://github.com/pytorch/executorch/pull/4821
"""
import math
from typing import List

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"images": {1: "height", 2: "width"}}
BLIND = "domains-36"


# --- the few lines of torchvision.transforms.v2.functional used by the model ---
def _parse_pad_padding(padding: List[int]) -> List[int]:
    # (left, top, right, bottom) -> (left, right, top, bottom)
    return [padding[0], padding[2], padding[1], padding[3]]


def _pad_with_vector_fill(image, torch_padding, fill, padding_mode="constant"):
    if padding_mode != "constant":
        raise ValueError(f"Padding mode '{padding_mode}' is not supported if fill is not scalar")

    output = torch.nn.functional.pad(image, torch_padding, mode="constant", value=0.0)
    left, right, top, bottom = torch_padding
    fill = torch.tensor(fill, device=image.device).to(dtype=image.dtype).reshape(-1, 1, 1)

    if top > 0:
        output[..., :top, :] = fill
    if left > 0:
        output[..., :, :left] = fill
    if bottom > 0:
        output[..., -bottom:, :] = fill
    if right > 0:
        output[..., :, -right:] = fill
    return output


class F:
    @staticmethod
    def pad(inpt, padding, fill=None, padding_mode="constant"):
        return _pad_with_vector_fill(inpt, _parse_pad_padding(list(padding)), list(fill), padding_mode)

    @staticmethod
    def normalize(inpt, mean, std):
        mean = torch.as_tensor(mean, dtype=inpt.dtype, device=inpt.device).view(-1, 1, 1)
        std = torch.as_tensor(std, dtype=inpt.dtype, device=inpt.device).view(-1, 1, 1)
        return (inpt - mean) / std


class CLIPImageProcessor:
    image_mean = [0.48145466, 0.4578275, 0.40821073]
    image_std = [0.26862954, 0.26130258, 0.27577711]
    rescale_factor = 1 / 255
    crop_size = {"height": 32, "width": 32}


class Llava(nn.Module):
    def __init__(self, image_processor=CLIPImageProcessor(), hidden=32, text_dim=48, patch=8):
        super().__init__()
        self.image_processor = image_processor
        self.vision_tower = nn.Conv2d(3, hidden, patch, patch)  # stand-in for the CLIP vision tower
        self.multi_modal_projector = nn.Sequential(nn.Linear(hidden, text_dim), nn.GELU(), nn.Linear(text_dim, text_dim))

    def encode_images(self, images: torch.Tensor) -> torch.Tensor:
        image_features = self.vision_tower(images).flatten(2).transpose(1, 2)
        image_features = self.multi_modal_projector(image_features)
        return image_features

    def image_preprocess(self, img: torch.Tensor) -> torch.Tensor:
        w = max(img.shape[1], img.shape[2])
        # pad the image with median rgb value, to make a square
        v_padding = (w - img.shape[1]) / 2
        h_padding = (w - img.shape[2]) / 2
        l_pad = int(math.ceil(h_padding))
        t_pad = int(math.ceil(v_padding))
        r_pad = int(math.floor(h_padding))
        b_pad = int(math.floor(v_padding))
        resized = F.pad(
            img,
            padding=(l_pad, t_pad, r_pad, b_pad),
            fill=tuple(int(x * 255) for x in self.image_processor.image_mean),
        )
        scaled = resized * self.image_processor.rescale_factor
        normed = F.normalize(
            scaled, self.image_processor.image_mean, self.image_processor.image_std
        )
        return normed.unsqueeze(0)

    def image_embedding(self, images: torch.Tensor) -> torch.Tensor:
        preprocessed_img = self.image_preprocess(images)
        return self.encode_images(preprocessed_img)

    def forward(self, images):
        return self.image_embedding(images)


def make_model():
    return Llava().eval()


def example_inputs():
    return (torch.randint(0, 256, (3, 24, 32), dtype=torch.uint8),)


def other_inputs():
    return [
        (torch.randint(0, 256, (3, 40, 27), dtype=torch.uint8),),
        (torch.randint(0, 256, (3, 17, 48), dtype=torch.uint8),),
    ]


def probe_inputs():
    return other_inputs()
