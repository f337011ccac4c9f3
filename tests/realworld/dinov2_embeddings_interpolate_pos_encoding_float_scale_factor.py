"""Hugging Face Dinov2Embeddings: `interpolate_pos_encoding` resamples the learned position embeddings to the
input's patch grid with Python math on the image size (`height // patch_size + 0.1`, `int(math.sqrt(...))`,
`scale_factor=(float(height / math.sqrt(num_positions)), ...)`, bicubic) plus an `int(height) != ...` check;
adding DINOv2 to Optimum's ONNX export stalled because this resampling is "hard-coded in the model code" and the
exported bicubic Resize fails in onnxruntime / does not follow other image sizes.

Source: https://github.com/huggingface/optimum/pull/1580
"""
import math
from types import SimpleNamespace

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"pixel_values": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-48"


class Dinov2PatchEmbeddings(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.projection = nn.Conv2d(config.num_channels, config.hidden_size,
                                    kernel_size=config.patch_size, stride=config.patch_size)

    def forward(self, pixel_values):
        return self.projection(pixel_values).flatten(2).transpose(1, 2)


class Dinov2Embeddings(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.cls_token = nn.Parameter(torch.randn(1, 1, config.hidden_size))
        self.mask_token = nn.Parameter(torch.zeros(1, config.hidden_size))
        self.patch_embeddings = Dinov2PatchEmbeddings(config)
        num_patches = (config.image_size // config.patch_size) ** 2
        self.position_embeddings = nn.Parameter(torch.randn(1, num_patches + 1, config.hidden_size))
        self.dropout = nn.Dropout(config.hidden_dropout_prob)
        self.config = config

    def interpolate_pos_encoding(self, embeddings, height, width):
        num_patches = embeddings.shape[1] - 1
        num_positions = self.position_embeddings.shape[1] - 1
        if num_patches == num_positions and height == width:
            return self.position_embeddings
        class_pos_embed = self.position_embeddings[:, 0]
        patch_pos_embed = self.position_embeddings[:, 1:]
        dim = embeddings.shape[-1]
        height = height // self.config.patch_size
        width = width // self.config.patch_size
        # we add a small number to avoid floating point error in the interpolation
        # see discussion at https://github.com/facebookresearch/dino/issues/8
        height, width = height + 0.1, width + 0.1
        patch_pos_embed = patch_pos_embed.reshape(1, int(math.sqrt(num_positions)), int(math.sqrt(num_positions)), dim)
        patch_pos_embed = patch_pos_embed.permute(0, 3, 1, 2)
        target_dtype = patch_pos_embed.dtype
        patch_pos_embed = nn.functional.interpolate(
            patch_pos_embed.to(dtype=torch.float32),
            scale_factor=(float(height / math.sqrt(num_positions)), float(width / math.sqrt(num_positions))),
            mode="bicubic",
            align_corners=False,
        ).to(dtype=target_dtype)
        if int(height) != patch_pos_embed.shape[-2] or int(width) != patch_pos_embed.shape[-1]:
            raise ValueError("Width or height does not match with the interpolated position embeddings")
        patch_pos_embed = patch_pos_embed.permute(0, 2, 3, 1).view(1, -1, dim)
        return torch.cat((class_pos_embed.unsqueeze(0), patch_pos_embed), dim=1)

    def forward(self, pixel_values):
        batch_size, _, height, width = pixel_values.shape
        target_dtype = self.patch_embeddings.projection.weight.dtype
        embeddings = self.patch_embeddings(pixel_values.to(dtype=target_dtype))

        # add the [CLS] token to the embedded patch tokens
        cls_tokens = self.cls_token.expand(batch_size, -1, -1)
        embeddings = torch.cat((cls_tokens, embeddings), dim=1)

        # add positional encoding to each token
        embeddings = embeddings + self.interpolate_pos_encoding(embeddings, height, width)
        embeddings = self.dropout(embeddings)
        return embeddings


class Dinov2Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        config = SimpleNamespace(num_channels=3, hidden_size=32, patch_size=4, image_size=32,
                                 hidden_dropout_prob=0.0)
        self.embeddings = Dinov2Embeddings(config)
        self.layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True)
        self.layernorm = nn.LayerNorm(32)

    def forward(self, pixel_values):
        x = self.layer(self.embeddings(pixel_values))
        return self.layernorm(x)


def make_model():
    return Dinov2Backbone()


def example_inputs():
    return (torch.randn(2, 3, 40, 48),)


def other_inputs():
    return [(torch.randn(3, 3, 56, 36),), (torch.randn(1, 3, 24, 64),)]


def probe_inputs():
    return other_inputs()
