"""Hiera (HF transformers, hierarchical ViT) `interpolate_pos_encoding`: early return when
`num_patches == num_positions and height == width`, `int(math.sqrt(num_positions))` reshapes, a
`scale_factor` computed from Python floats and an `int(h0) != ...` size check; the report says these
`math.sqrt` / `int` casts break ONNX export with dynamic image sizes.

Source: https://github.com/huggingface/transformers/issues/33181
"""
import math

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "scalars"
DYNAMIC = {"pixel_values": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-13"


class HieraEmbeddings(nn.Module):
    def __init__(self, image_size=(32, 32), patch_stride=(4, 4), embed_dim=16):
        super().__init__()
        self.patch_stride = patch_stride
        self.sep_pos_embed = False
        tokens_spatial_shape = [i // s for i, s in zip(image_size, patch_stride)]
        self.num_tokens = math.prod(tokens_spatial_shape)
        self.projection = nn.Conv2d(3, embed_dim, kernel_size=(7, 7), stride=patch_stride, padding=(3, 3))
        self.position_embeddings = nn.Parameter(torch.randn(1, self.num_tokens, embed_dim) * 0.02)

    def interpolate_pos_encoding(
        self, embeddings: torch.Tensor, pos_embeds: torch.Tensor, height: int, width: int
    ) -> torch.Tensor:
        num_patches = embeddings.shape[1]
        num_positions = pos_embeds.shape[1]
        if num_patches == num_positions and height == width:
            return pos_embeds
        dim = embeddings.shape[-1]
        h0 = height // self.patch_stride[0] if not self.sep_pos_embed else height // self.patch_stride[1]
        w0 = width // self.patch_stride[1] if not self.sep_pos_embed else width // self.patch_stride[2]
        # we add a small number to avoid floating point error in the interpolation
        # see discussion at https://github.com/facebookresearch/dino/issues/8
        h0, w0 = h0 + 0.1, w0 + 0.1
        pos_embeds = pos_embeds.reshape(1, int(math.sqrt(num_positions)), int(math.sqrt(num_positions)), dim)
        pos_embeds = pos_embeds.permute(0, 3, 1, 2)
        pos_embeds = nn.functional.interpolate(
            pos_embeds,
            scale_factor=(h0 / math.sqrt(num_positions), w0 / math.sqrt(num_positions)),
            mode="bicubic",
            align_corners=False,
        )
        if int(h0) != pos_embeds.shape[-2] or int(w0) != pos_embeds.shape[-1]:
            raise ValueError("The interpolated position encoding does not have the right size")
        pos_embeds = pos_embeds.permute(0, 2, 3, 1).view(1, -1, dim)
        return pos_embeds

    def get_position_embedding(self, embeddings, height, width, interpolate_pos_encoding):
        position_embeddings = self.position_embeddings
        position_embeddings = (
            self.interpolate_pos_encoding(embeddings, position_embeddings, height, width)
            if interpolate_pos_encoding
            else position_embeddings
        )
        return position_embeddings

    def forward(self, pixel_values, interpolate_pos_encoding=False):
        height, width = pixel_values.shape[-2:]
        embeddings = self.projection(pixel_values).flatten(2).transpose(2, 1)
        embeddings = embeddings + self.get_position_embedding(embeddings, height, width, interpolate_pos_encoding)
        return embeddings


class HieraMaskUnitAttention(nn.Module):
    def __init__(self, hidden_size=16, num_heads=2):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = hidden_size // num_heads
        self.scale = self.head_dim ** -0.5
        self.qkv = nn.Linear(hidden_size, 3 * hidden_size)
        self.proj = nn.Linear(hidden_size, hidden_size)

    def forward(self, hidden_states):
        batch_size, seq_len, _ = hidden_states.shape
        num_windows = 1
        qkv = self.qkv(hidden_states)
        qkv = qkv.reshape(batch_size, -1, num_windows, 3, self.num_heads, self.head_dim)
        qkv = qkv.permute(3, 0, 4, 2, 1, 5)
        query, key, value = qkv.unbind(0)
        attn_weights = (query * self.scale) @ key.transpose(-1, -2)
        attn_weights = attn_weights.softmax(dim=-1)
        attn_output = attn_weights @ value
        attn_output = attn_output.transpose(1, 3).reshape(batch_size, -1, self.num_heads * self.head_dim)
        return self.proj(attn_output)


class HieraForImageClassification(nn.Module):
    def __init__(self, num_labels=10):
        super().__init__()
        self.embeddings = HieraEmbeddings()
        self.layernorm_before = nn.LayerNorm(16)
        self.attn = HieraMaskUnitAttention()
        self.pooler = nn.LayerNorm(16)
        self.classifier = nn.Linear(16, num_labels)

    def forward(self, pixel_values):
        # exported for arbitrary image sizes, so position encodings are always interpolated
        hidden_states = self.embeddings(pixel_values, interpolate_pos_encoding=True)
        hidden_states = hidden_states + self.attn(self.layernorm_before(hidden_states))
        pooled = self.pooler(hidden_states.mean(dim=1))
        return self.classifier(pooled)


def make_model():
    return HieraForImageClassification().eval()


def example_inputs():
    return (torch.randn(1, 3, 32, 32),)


def other_inputs():
    return [(torch.randn(2, 3, 48, 48),), (torch.randn(3, 3, 64, 32),)]


def probe_inputs():
    return other_inputs()
