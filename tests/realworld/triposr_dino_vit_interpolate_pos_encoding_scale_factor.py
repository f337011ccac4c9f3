"""TripoSR's image tokenizer runs the DINO ViT (transformers 4.35 ViTModel, facebook/dino-vitb16) with
interpolate_pos_encoding=True at 512 px, so its 224-px position table is resized with a bicubic
F.interpolate whose scale_factor is Python math on the input height/width; the legacy exporter
fails there (upsample_bicubic2d rejects the traced size) and the QtMeshEditor export script had to
precompute the table and monkeypatch interpolate_pos_encoding.

Source: https://github.com/fernandotonon/QtMeshEditor/blob/345f134c93f4b00c9c5a7312b56f80ec441e59aa/scripts/export-triposr-onnx.py
"""
import collections.abc
import math

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"image": {0: "B"}}
BLIND = "domains-70"


class ViTPatchEmbeddings(nn.Module):
    def __init__(self, image_size=224, patch_size=16, num_channels=3, hidden_size=64):
        super().__init__()
        image_size = image_size if isinstance(image_size, collections.abc.Iterable) else (image_size, image_size)
        patch_size = patch_size if isinstance(patch_size, collections.abc.Iterable) else (patch_size, patch_size)
        self.image_size = image_size
        self.patch_size = patch_size
        self.num_channels = num_channels
        self.num_patches = (image_size[1] // patch_size[1]) * (image_size[0] // patch_size[0])
        self.projection = nn.Conv2d(num_channels, hidden_size, kernel_size=patch_size, stride=patch_size)

    def forward(self, pixel_values, interpolate_pos_encoding=False):
        batch_size, num_channels, height, width = pixel_values.shape
        if num_channels != self.num_channels:
            raise ValueError("Make sure that the channel dimension of the pixel values match with the one set in the configuration.")
        if not interpolate_pos_encoding:
            if height != self.image_size[0] or width != self.image_size[1]:
                raise ValueError(f"Input image size ({height}*{width}) doesn't match model ({self.image_size[0]}*{self.image_size[1]}).")
        embeddings = self.projection(pixel_values).flatten(2).transpose(1, 2)
        return embeddings


class ViTEmbeddings(nn.Module):
    def __init__(self, image_size=224, patch_size=16, hidden_size=64):
        super().__init__()
        self.cls_token = nn.Parameter(torch.randn(1, 1, hidden_size))
        self.patch_embeddings = ViTPatchEmbeddings(image_size, patch_size, 3, hidden_size)
        num_patches = self.patch_embeddings.num_patches
        self.position_embeddings = nn.Parameter(torch.randn(1, num_patches + 1, hidden_size))
        self.patch_size = patch_size

    def interpolate_pos_encoding(self, embeddings, height, width):
        num_patches = embeddings.shape[1] - 1
        num_positions = self.position_embeddings.shape[1] - 1
        if num_patches == num_positions and height == width:
            return self.position_embeddings
        class_pos_embed = self.position_embeddings[:, 0]
        patch_pos_embed = self.position_embeddings[:, 1:]
        dim = embeddings.shape[-1]
        h0 = height // self.patch_size
        w0 = width // self.patch_size
        # we add a small number to avoid floating point error in the interpolation
        h0, w0 = h0 + 0.1, w0 + 0.1
        patch_pos_embed = patch_pos_embed.reshape(1, int(math.sqrt(num_positions)), int(math.sqrt(num_positions)), dim)
        patch_pos_embed = patch_pos_embed.permute(0, 3, 1, 2)
        patch_pos_embed = nn.functional.interpolate(
            patch_pos_embed,
            scale_factor=(h0 / math.sqrt(num_positions), w0 / math.sqrt(num_positions)),
            mode="bicubic",
            align_corners=False,
        )
        assert int(h0) == patch_pos_embed.shape[-2] and int(w0) == patch_pos_embed.shape[-1]
        patch_pos_embed = patch_pos_embed.permute(0, 2, 3, 1).view(1, -1, dim)
        return torch.cat((class_pos_embed.unsqueeze(0), patch_pos_embed), dim=1)

    def forward(self, pixel_values, interpolate_pos_encoding=False):
        batch_size, num_channels, height, width = pixel_values.shape
        embeddings = self.patch_embeddings(pixel_values, interpolate_pos_encoding=interpolate_pos_encoding)
        cls_tokens = self.cls_token.expand(batch_size, -1, -1)
        embeddings = torch.cat((cls_tokens, embeddings), dim=1)
        if interpolate_pos_encoding:
            embeddings = embeddings + self.interpolate_pos_encoding(embeddings, height, width)
        else:
            embeddings = embeddings + self.position_embeddings
        return embeddings


class DINOSingleImageTokenizer(nn.Module):
    """tsr/models/tokenizers/image.py, with the ViT encoder stack cut to one MLP block."""

    def __init__(self, hidden_size=64):
        super().__init__()
        self.embeddings = ViTEmbeddings(hidden_size=hidden_size)
        self.layer = nn.Sequential(nn.LayerNorm(hidden_size), nn.Linear(hidden_size, hidden_size * 2), nn.GELU(), nn.Linear(hidden_size * 2, hidden_size))
        self.layernorm = nn.LayerNorm(hidden_size)

    def forward(self, images):
        packed = False
        if images.ndim == 4:
            packed = True
            images = images.unsqueeze(1)
        batch_size, n_input_views = images.shape[:2]
        x = self.embeddings(images.flatten(0, 1), interpolate_pos_encoding=True)
        x = self.layernorm(x + self.layer(x))
        local_features = x.permute(0, 2, 1)
        local_features = local_features.reshape(batch_size, n_input_views, *local_features.shape[1:])
        if packed:
            local_features = local_features.squeeze(1)
        return local_features


class TripoSREncoderHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.image_tokenizer = DINOSingleImageTokenizer()

    def forward(self, image):
        # image: [B,3,S,S] -> tokenizer expects [B, Nv, C, H, W] with Nv=1 (the export wrapper)
        tokens_in = image[:, None]
        img_tokens = self.image_tokenizer(tokens_in)
        return img_tokens.flatten(1, 2).transpose(1, 2)


def make_model():
    return TripoSREncoderHead().eval()


def example_inputs():
    return (torch.rand(1, 3, 512, 512),)


def other_inputs():
    return [(torch.rand(2, 3, 512, 512),), (torch.rand(3, 3, 512, 512),)]


def probe_inputs():
    return other_inputs()
