"""CLAP audio encoder (HTSAT Swin on the mel "image"): `window_reverse` recomputes the batch size as
`int(windows.shape[0] / (height * width / window_size / window_size))`; the ONNX export records it as a
constant, so the CLAP audio model exported with a dynamic batch only runs with the example's batch size.

Source: https://github.com/huggingface/transformers/pull/27790
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"input_features": {0: "batch_size"}}
BLIND = "domains-18"


def window_partition(hidden_states, window_size):
    batch_size, height, width, num_channels = hidden_states.shape
    hidden_states = hidden_states.view(
        batch_size, height // window_size, window_size, width // window_size, window_size, num_channels
    )
    windows = hidden_states.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, window_size, window_size, num_channels)
    return windows


def window_reverse(windows, window_size, height, width):
    batch_size = int(windows.shape[0] / (height * width / window_size / window_size))

    hidden_states = windows.view(batch_size, height // window_size, width // window_size, window_size, window_size, -1)
    hidden_states = hidden_states.permute(0, 1, 3, 2, 4, 5).contiguous().view(batch_size, height, width, -1)
    return hidden_states


class ClapAudioLayer(nn.Module):
    def __init__(self, dim=32, num_heads=4, window_size=4, patch_size=4, spec_size=32):
        super().__init__()
        self.window_size = window_size
        self.input_resolution = (spec_size // patch_size, spec_size // patch_size)
        self.patch_embed = nn.Conv2d(1, dim, kernel_size=patch_size, stride=patch_size)
        self.layernorm_before = nn.LayerNorm(dim)
        self.attention = nn.MultiheadAttention(dim, num_heads, batch_first=True)
        self.layernorm_after = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, input_features):
        hidden_states = self.patch_embed(input_features).flatten(2).transpose(1, 2)
        height, width = self.input_resolution
        batch_size, _, channels = hidden_states.size()
        shortcut = hidden_states
        hidden_states = self.layernorm_before(hidden_states).view(batch_size, height, width, channels)
        hidden_states_windows = window_partition(hidden_states, self.window_size)
        hidden_states_windows = hidden_states_windows.view(-1, self.window_size * self.window_size, channels)
        attention_output = self.attention(hidden_states_windows, hidden_states_windows, hidden_states_windows)[0]
        attention_windows = attention_output.view(-1, self.window_size, self.window_size, channels)
        shifted_windows = window_reverse(attention_windows, self.window_size, height, width)
        attention_windows = shifted_windows.view(batch_size, height * width, channels)
        hidden_states = shortcut + attention_windows
        return hidden_states + self.mlp(self.layernorm_after(hidden_states))


def make_model():
    return ClapAudioLayer().eval()


def example_inputs():
    return (torch.randn(2, 1, 32, 32),)


def other_inputs():
    return [(torch.randn(3, 1, 32, 32),), (torch.randn(1, 1, 32, 32),)]


def probe_inputs():
    return other_inputs()
