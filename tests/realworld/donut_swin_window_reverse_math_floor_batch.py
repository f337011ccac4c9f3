"""Donut (OCR-free document understanding, DonutSwin image encoder): window_reverse recovers the batch size
with `batch_size = math.floor(windows.shape[0] / (height * width / window_size / window_size))` and views
the windows back with it. The report says the exported Donut ONNX model has low accuracy when it is run
with a batch size other than the one used at export. Trimmed to the patch embedding and one DonutSwinLayer.

Source: https://github.com/huggingface/optimum/issues/743
"""
import math

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"pixel_values": {0: "batch"}}
BLIND = "domains-28"


def window_partition(input_feature, window_size):
    batch_size, height, width, num_channels = input_feature.shape
    input_feature = input_feature.view(
        batch_size, height // window_size, window_size, width // window_size, window_size, num_channels
    )
    windows = input_feature.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, window_size, window_size, num_channels)
    return windows


def window_reverse(windows, window_size, height, width):
    batch_size = math.floor(windows.shape[0] / (height * width / window_size / window_size))
    windows = windows.view(batch_size, height // window_size, width // window_size, window_size, window_size, -1)
    windows = windows.permute(0, 1, 3, 2, 4, 5).contiguous().view(batch_size, height, width, -1)
    return windows


class DonutSwinSelfAttention(nn.Module):
    def __init__(self, dim, num_heads, window_size):
        super().__init__()
        self.num_attention_heads = num_heads
        self.attention_head_size = dim // num_heads
        self.all_head_size = self.num_attention_heads * self.attention_head_size
        self.window_size = (window_size, window_size)
        self.relative_position_bias_table = nn.Parameter(
            torch.zeros((2 * self.window_size[0] - 1) * (2 * self.window_size[1] - 1), num_heads)
        )
        coords_h = torch.arange(self.window_size[0])
        coords_w = torch.arange(self.window_size[1])
        coords = torch.stack(torch.meshgrid([coords_h, coords_w], indexing="ij"))
        coords_flatten = torch.flatten(coords, 1)
        relative_coords = coords_flatten[:, :, None] - coords_flatten[:, None, :]
        relative_coords = relative_coords.permute(1, 2, 0).contiguous()
        relative_coords[:, :, 0] += self.window_size[0] - 1
        relative_coords[:, :, 1] += self.window_size[1] - 1
        relative_coords[:, :, 0] *= 2 * self.window_size[1] - 1
        relative_position_index = relative_coords.sum(-1)
        self.register_buffer("relative_position_index", relative_position_index)
        self.query = nn.Linear(self.all_head_size, self.all_head_size)
        self.key = nn.Linear(self.all_head_size, self.all_head_size)
        self.value = nn.Linear(self.all_head_size, self.all_head_size)
        self.output = nn.Linear(dim, dim)

    def transpose_for_scores(self, x):
        new_x_shape = x.size()[:-1] + (self.num_attention_heads, self.attention_head_size)
        x = x.view(new_x_shape)
        return x.permute(0, 2, 1, 3)

    def forward(self, hidden_states):
        batch_size, dim, num_channels = hidden_states.shape
        query_layer = self.transpose_for_scores(self.query(hidden_states))
        key_layer = self.transpose_for_scores(self.key(hidden_states))
        value_layer = self.transpose_for_scores(self.value(hidden_states))
        attention_scores = torch.matmul(query_layer, key_layer.transpose(-1, -2))
        attention_scores = attention_scores / math.sqrt(self.attention_head_size)
        relative_position_bias = self.relative_position_bias_table[self.relative_position_index.view(-1)]
        relative_position_bias = relative_position_bias.view(
            self.window_size[0] * self.window_size[1], self.window_size[0] * self.window_size[1], -1
        )
        relative_position_bias = relative_position_bias.permute(2, 0, 1).contiguous()
        attention_scores = attention_scores + relative_position_bias.unsqueeze(0)
        attention_probs = nn.functional.softmax(attention_scores, dim=-1)
        context_layer = torch.matmul(attention_probs, value_layer)
        context_layer = context_layer.permute(0, 2, 1, 3).contiguous()
        new_context_layer_shape = context_layer.size()[:-2] + (self.all_head_size,)
        return self.output(context_layer.view(new_context_layer_shape))


class DonutSwinLayer(nn.Module):
    def __init__(self, dim=32, num_heads=4, window_size=4):
        super().__init__()
        self.window_size = window_size
        self.layernorm_before = nn.LayerNorm(dim)
        self.attention = DonutSwinSelfAttention(dim, num_heads, window_size)
        self.layernorm_after = nn.LayerNorm(dim)
        self.intermediate = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU())
        self.output = nn.Linear(4 * dim, dim)

    def forward(self, hidden_states, input_dimensions):
        height, width = input_dimensions
        batch_size, _, channels = hidden_states.size()
        shortcut = hidden_states
        hidden_states = self.layernorm_before(hidden_states)
        hidden_states = hidden_states.view(batch_size, height, width, channels)
        _, height_pad, width_pad, _ = hidden_states.shape
        shifted_hidden_states = hidden_states
        hidden_states_windows = window_partition(shifted_hidden_states, self.window_size)
        hidden_states_windows = hidden_states_windows.view(-1, self.window_size * self.window_size, channels)
        attention_output = self.attention(hidden_states_windows)
        attention_windows = attention_output.view(-1, self.window_size, self.window_size, channels)
        shifted_windows = window_reverse(attention_windows, self.window_size, height_pad, width_pad)
        attention_windows = shifted_windows
        attention_windows = attention_windows.view(batch_size, height * width, channels)
        hidden_states = shortcut + attention_windows
        layer_output = self.layernorm_after(hidden_states)
        layer_output = self.intermediate(layer_output)
        return hidden_states + self.output(layer_output)


class DonutSwinEncoderLite(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.patch_embeddings = nn.Conv2d(3, dim, kernel_size=4, stride=4)
        self.norm = nn.LayerNorm(dim)
        self.layer = DonutSwinLayer(dim)

    def forward(self, pixel_values):
        embeddings = self.patch_embeddings(pixel_values)
        _, _, height, width = embeddings.shape
        embeddings = self.norm(embeddings.flatten(2).transpose(1, 2))
        return self.layer(embeddings, (height, width))


def make_model():
    return DonutSwinEncoderLite().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 48),)


def other_inputs():
    return [(torch.randn(5, 3, 64, 48),), (torch.randn(1, 3, 64, 48),)]


def probe_inputs():
    return other_inputs()
