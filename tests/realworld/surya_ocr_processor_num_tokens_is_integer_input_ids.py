"""Surya OCR (text recognition, surya-ocr 0.15) run as one traced module: the wrapper feeds the page image through
`SuryaOCRProcessor._process_and_tile` / `_process_image_input`, which tiles it into patches and computes
`num_tokens = image_tiles.shape[0] / self.merge_size**2`, asserts `num_tokens.is_integer()` and builds the prompt
`input_ids = [self.image_token_id] * int(num_tokens)` before `torch.tensor(processed_input_ids)`. The report says
the jit trace fails with `AttributeError: 'Tensor' object has no attribute 'is_integer'` (the traced size is a
tensor) and monkey-patches the processor to convert num tokens to int. The image size (H, W) is dynamic.
(cv2.resize in the not-a-multiple branch is replaced by F.interpolate; the example sizes never take it.)

Source: https://github.com/tenstorrent/tt-forge-onnx/pull/2895
"""
import math
from typing import Tuple

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"image": {0: "height", 1: "width"}}
BLIND = "domains-70"


class SuryaOCRProcessor:
    def __init__(self, patch_size=4, merge_size=2, num_register_tokens=4):
        self.patch_size = patch_size
        self.merge_size = merge_size
        self.num_register_tokens = num_register_tokens
        self.image_token_id = 5
        self.register_token_ids = [6, 7, 8, 9]
        self.image_rotated_token = 10
        self.eoi_token_id = 2
        self.nomath_token = 11

    def _process_and_tile(self, image: torch.Tensor) -> Tuple[torch.Tensor, Tuple[int, int, int]]:
        factor = self.patch_size * self.merge_size

        height, width = image.shape[:2]

        h_bar = math.ceil(height / factor) * factor
        w_bar = math.ceil(width / factor) * factor
        if h_bar != height or w_bar != width:
            image = F.interpolate(image.permute(2, 0, 1)[None], size=(h_bar, w_bar), mode="bicubic")[0].permute(1, 2, 0)

        height, width = image.shape[:2]

        img_tensor = image.permute(2, 0, 1)
        patches = img_tensor.unsqueeze(0)

        channel = patches.shape[1]
        grid_t = patches.shape[0]
        grid_h, grid_w = height // self.patch_size, width // self.patch_size

        patches = patches.reshape(
            grid_t,
            1,
            channel,
            grid_h // self.merge_size,
            self.merge_size,
            self.patch_size,
            grid_w // self.merge_size,
            self.merge_size,
            self.patch_size,
        )
        patches = patches.permute(0, 3, 6, 4, 7, 2, 1, 5, 8)
        flatten_patches = patches.reshape(
            grid_t * grid_h * grid_w, channel * 1 * self.patch_size * self.patch_size
        )

        return flatten_patches, (grid_t, grid_h, grid_w)

    def _process_image_input(self, image_input: dict) -> dict:
        rotated = image_input.get("rotated", False)
        image = image_input.get("image", None)

        assert image is not None, (
            "A PIL Image must be provided when the input type is `image`"
        )
        image_tiles, grid_thw = self._process_and_tile(image)

        num_tokens = image_tiles.shape[0] / self.merge_size**2
        assert num_tokens.is_integer(), (
            f"Expected number of tokens to be an integer, got {num_tokens}"
        )

        input_ids = [self.image_token_id] * int(num_tokens)
        input_ids += self.register_token_ids[: self.num_register_tokens]

        if rotated:
            input_ids = [self.image_rotated_token] + input_ids

        return dict(input_ids=input_ids, image_tiles=image_tiles, grid_thw=grid_thw)

    def __call__(self, image: torch.Tensor, bos_token_id: int = 3):
        out = self._process_image_input({"type": "image", "image": image})
        input_ids = out["input_ids"] + [bos_token_id, self.nomath_token, self.eoi_token_id]
        return torch.tensor(input_ids, dtype=torch.long), out["image_tiles"], out["grid_thw"]


class SuryaRecognitionWrapper(nn.Module):
    """Processor + a stand-in for the encoder's patch embedding and the decoder's token embedding."""

    def __init__(self, dim=32, vocab=16):
        super().__init__()
        self.processor = SuryaOCRProcessor()
        self.patch_embed = nn.Linear(3 * 4 * 4, dim)
        self.merger = nn.Linear(4 * dim, dim)
        self.embed_tokens = nn.Embedding(vocab, dim)

    def forward(self, image):
        input_ids, image_tiles, grid_thw = self.processor(image)
        image_embeds = self.patch_embed(image_tiles)
        image_embeds = self.merger(image_embeds.reshape(-1, 4 * image_embeds.shape[-1]))
        text_embeds = self.embed_tokens(input_ids)
        return input_ids, image_embeds, text_embeds


def make_model():
    return SuryaRecognitionWrapper().eval()


def example_inputs():
    return (torch.randn(32, 96, 3),)


def other_inputs():
    return [(torch.randn(40, 128, 3),), (torch.randn(16, 48, 3),)]


def probe_inputs():
    return other_inputs()
