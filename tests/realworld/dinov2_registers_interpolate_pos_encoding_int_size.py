"""DINOv2-with-registers embeddings: `interpolate_pos_encoding` resizes the position grid with
`sqrt_num_positions = int(math.sqrt(num_positions))` and `size=(int(height), int(width))`, where
height/width are the patch counts of the input image; the reviewer asks for torch_int because the
Python int() casts freeze the export-time image size when tracing (no dynamic image sizes in ONNX).

Source: https://github.com/huggingface/transformers/pull/35411
"""
import math

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "scalars"
DYNAMIC = {"pixel_values": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-28"


class Dinov2WithRegistersEmbeddings(nn.Module):
    def __init__(self, hidden_size=32, patch_size=14, image_size=56, num_register_tokens=4):
        super().__init__()
        self.patch_size = patch_size
        num_patches = (image_size // patch_size) ** 2
        self.cls_token = nn.Parameter(torch.randn(1, 1, hidden_size))
        self.mask_token = nn.Parameter(torch.zeros(1, hidden_size))
        self.register_tokens = nn.Parameter(torch.randn(1, num_register_tokens, hidden_size))
        self.position_embeddings = nn.Parameter(torch.randn(1, num_patches + 1, hidden_size))
        self.patch_embeddings = nn.Conv2d(3, hidden_size, kernel_size=patch_size, stride=patch_size)

    def interpolate_pos_encoding(self, embeddings: torch.Tensor, height: int, width: int) -> torch.Tensor:
        num_patches = embeddings.shape[1] - 1
        num_positions = self.position_embeddings.shape[1] - 1
        if num_patches == num_positions and height == width:
            return self.position_embeddings
        class_pos_embed = self.position_embeddings[:, 0]
        patch_pos_embed = self.position_embeddings[:, 1:]
        dim = embeddings.shape[-1]
        height = height // self.patch_size
        width = width // self.patch_size
        sqrt_num_positions = int(math.sqrt(num_positions))
        patch_pos_embed = patch_pos_embed.reshape(1, sqrt_num_positions, sqrt_num_positions, dim)
        patch_pos_embed = patch_pos_embed.permute(0, 3, 1, 2)

        # Store original dtype for restoration after interpolation
        target_dtype = patch_pos_embed.dtype

        # Interpolate at float32 precision
        patch_pos_embed = nn.functional.interpolate(
            patch_pos_embed.to(dtype=torch.float32),
            size=(int(height), int(width)),  # Explicit size instead of scale_factor
            mode="bicubic",
            align_corners=False,
        ).to(dtype=target_dtype)
        patch_pos_embed = patch_pos_embed.permute(0, 2, 3, 1).view(1, -1, dim)
        return torch.cat((class_pos_embed.unsqueeze(0), patch_pos_embed), dim=1)

    def forward(self, pixel_values):
        batch_size, _, height, width = pixel_values.shape
        embeddings = self.patch_embeddings(pixel_values).flatten(2).transpose(1, 2)
        cls_tokens = self.cls_token.expand(batch_size, -1, -1)
        embeddings = torch.cat((cls_tokens, embeddings), dim=1)
        embeddings = embeddings + self.interpolate_pos_encoding(embeddings, height, width)
        embeddings = torch.cat(
            (embeddings[:, :1], self.register_tokens.expand(embeddings.shape[0], -1, -1), embeddings[:, 1:]), dim=1
        )
        return embeddings


def make_model():
    return Dinov2WithRegistersEmbeddings()


def example_inputs():
    return (torch.randn(2, 3, 28, 42),)


def other_inputs():
    return [(torch.randn(3, 3, 42, 70),), (torch.randn(1, 3, 70, 28),)]


def probe_inputs():
    return other_inputs()
