"""ViTMatte's VitDet backbone (transformers modeling_vitdet): the patch embeddings resize the absolute position
table with `size = int(math.sqrt(num_position))` / `if size != height or size != width:` and the global-attention
blocks call `get_rel_pos`, which does `max_rel_dist = int(2 * max(q_size, k_size) - 1)`, interpolates the
relative-position table to that length and gathers it with `torch.arange(q_size)` coordinates; the exported
image-matting model only works at the size it was exported with ("Still an issue with shapes other than what
the model is exported with").

Source: https://github.com/huggingface/optimum/pull/1582
"""
import math

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"pixel_values": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-8"


def get_rel_pos(q_size, k_size, rel_pos):
    max_rel_dist = int(2 * max(q_size, k_size) - 1)
    # Interpolate rel pos if needed.
    if rel_pos.shape[0] != max_rel_dist:
        # Interpolate rel position embeddings.
        rel_pos_resized = nn.functional.interpolate(
            rel_pos.reshape(1, rel_pos.shape[0], -1).permute(0, 2, 1),
            size=max_rel_dist,
            mode="linear",
        )
        rel_pos_resized = rel_pos_resized.reshape(-1, max_rel_dist).permute(1, 0)
    else:
        rel_pos_resized = rel_pos

    # Scale the coords with short length if shapes for q and k are different.
    q_coords = torch.arange(q_size)[:, None] * max(k_size / q_size, 1.0)
    k_coords = torch.arange(k_size)[None, :] * max(q_size / k_size, 1.0)
    relative_coords = (q_coords - k_coords) + (k_size - 1) * max(q_size / k_size, 1.0)

    return rel_pos_resized[relative_coords.long()]


def add_decomposed_relative_positions(attn, queries, rel_pos_h, rel_pos_w, q_size, k_size):
    queries_height, queries_width = q_size
    keys_height, keys_width = k_size
    relative_height = get_rel_pos(queries_height, keys_height, rel_pos_h)
    relative_width = get_rel_pos(queries_width, keys_width, rel_pos_w)

    batch_size, _, dim = queries.shape
    r_q = queries.reshape(batch_size, queries_height, queries_width, dim)
    relative_height = torch.einsum("bhwc,hkc->bhwk", r_q, relative_height)
    relative_weight = torch.einsum("bhwc,wkc->bhwk", r_q, relative_width)

    attn = (
        attn.view(batch_size, queries_height, queries_width, keys_height, keys_width)
        + relative_height[:, :, :, :, None]
        + relative_weight[:, :, :, None, :]
    ).view(batch_size, queries_height * queries_width, keys_height * keys_width)
    return attn


class VitDetEmbeddings(nn.Module):
    def __init__(self, pretrain_image_size=224, patch_size=16, num_channels=4, hidden_size=32):
        super().__init__()
        num_patches = (pretrain_image_size // patch_size) ** 2
        self.num_channels = num_channels
        self.position_embeddings = nn.Parameter(torch.randn(1, num_patches + 1, hidden_size) * 0.02)
        self.projection = nn.Conv2d(num_channels, hidden_size, kernel_size=patch_size, stride=patch_size)

    def get_absolute_positions(self, abs_pos_embeddings, has_cls_token, height, width):
        if has_cls_token:
            abs_pos_embeddings = abs_pos_embeddings[:, 1:]
        num_position = abs_pos_embeddings.shape[1]
        size = int(math.sqrt(num_position))
        if size * size != num_position:
            raise ValueError("Absolute position embeddings must be a square number.")

        if size != height or size != width:
            new_abs_pos_embeddings = nn.functional.interpolate(
                abs_pos_embeddings.reshape(1, size, size, -1).permute(0, 3, 1, 2),
                size=(height, width),
                mode="bicubic",
                align_corners=False,
            )
            return new_abs_pos_embeddings.permute(0, 2, 3, 1)
        else:
            return abs_pos_embeddings.reshape(1, height, width, -1)

    def forward(self, pixel_values):
        num_channels = pixel_values.shape[1]
        if num_channels != self.num_channels:
            raise ValueError("Make sure that the channel dimension of the pixel values match with the one set in the configuration.")
        embeddings = self.projection(pixel_values)
        embeddings = embeddings.permute(0, 2, 3, 1)
        embeddings = embeddings + self.get_absolute_positions(
            self.position_embeddings, True, embeddings.shape[1], embeddings.shape[2]
        )
        embeddings = embeddings.permute(0, 3, 1, 2)
        return embeddings


class VitDetAttention(nn.Module):
    def __init__(self, dim=32, num_heads=2, input_size=(14, 14)):
        super().__init__()
        self.num_heads = num_heads
        head_dim = dim // num_heads
        self.scale = head_dim**-0.5
        self.qkv = nn.Linear(dim, dim * 3, bias=True)
        self.proj = nn.Linear(dim, dim)
        self.use_relative_position_embeddings = True
        self.rel_pos_h = nn.Parameter(torch.randn(2 * input_size[0] - 1, head_dim) * 0.1)
        self.rel_pos_w = nn.Parameter(torch.randn(2 * input_size[1] - 1, head_dim) * 0.1)

    def forward(self, hidden_state):
        batch_size, height, width, _ = hidden_state.shape
        qkv = self.qkv(hidden_state).reshape(batch_size, height * width, 3, self.num_heads, -1).permute(2, 0, 3, 1, 4)
        queries, keys, values = qkv.reshape(3, batch_size * self.num_heads, height * width, -1).unbind(0)
        attention_scores = (queries * self.scale) @ keys.transpose(-2, -1)
        if self.use_relative_position_embeddings:
            attention_scores = add_decomposed_relative_positions(
                attention_scores, queries, self.rel_pos_h, self.rel_pos_w, (height, width), (height, width)
            )
        attention_probs = attention_scores.softmax(dim=-1)
        hidden_state = attention_probs @ values
        hidden_state = hidden_state.view(batch_size, self.num_heads, height, width, -1)
        hidden_state = hidden_state.permute(0, 2, 3, 1, 4)
        hidden_state = hidden_state.reshape(batch_size, height, width, -1)
        return self.proj(hidden_state)


class VitMatteLike(nn.Module):
    def __init__(self):
        super().__init__()
        self.embeddings = VitDetEmbeddings()
        self.norm = nn.LayerNorm(32)
        self.attention = VitDetAttention()
        self.alpha_head = nn.Conv2d(32, 1, 1)

    def forward(self, pixel_values):
        x = self.embeddings(pixel_values).permute(0, 2, 3, 1)
        x = x + self.attention(self.norm(x))
        features = x.permute(0, 3, 1, 2)
        alphas = torch.sigmoid(self.alpha_head(features))
        return alphas


def make_model():
    return VitMatteLike().eval()


def example_inputs():
    return (torch.randn(1, 4, 128, 160),)


def other_inputs():
    return [(torch.randn(2, 4, 320, 288),), (torch.randn(1, 4, 96, 64),)]


def probe_inputs():
    return other_inputs()
