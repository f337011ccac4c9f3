"""rhasspy glow-tts-train ONNX export: `infer_forward(text, text_lengths, scales)` runs the Glow-TTS text encoder
(relative-position self-attention: `pad_length = max(length - (self.window_size + 1), 0)`) and expands the
phonemes by the predicted durations (`y_lengths = torch.clamp_min(torch.sum(w_ceil, [1, 2]), 1).long()`,
`sequence_mask(y_lengths, None)`, `generate_path`); exported with `dynamic_axes` on the phonemes and output time,
the reporter says the ONNX model "takes dummy input as fixed shape and do not work on dynamic input shape".

Source: https://github.com/rhasspy/glow-tts-train/issues/2
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "shape_math"
DYNAMIC = {"text": {0: "batch_size", 1: "phonemes"}, "text_lengths": {0: "batch_size"}}
BLIND = "domains-17"


def convert_pad_shape(pad_shape):
    last = pad_shape[::-1]
    return [item for sublist in last for item in sublist]


def sequence_mask(length, max_length=None):
    if max_length is None:
        max_length = length.max()
    x = torch.arange(max_length, dtype=length.dtype, device=length.device)
    return x.unsqueeze(0) < length.unsqueeze(1)


def generate_path(duration, mask):
    b, t_x, t_y = mask.shape
    cum_duration = torch.cumsum(duration, 1)
    cum_duration_flat = cum_duration.view(b * t_x)
    path = sequence_mask(cum_duration_flat, t_y).to(mask.dtype)
    path = path.view(b, t_x, t_y)
    path = path - F.pad(path, convert_pad_shape([[0, 0], [1, 0], [0, 0]]))[:, :-1]
    return path * mask


class MultiHeadAttention(nn.Module):
    def __init__(self, channels, n_heads, window_size=4):
        super().__init__()
        self.n_heads, self.window_size, self.k_channels = n_heads, window_size, channels // n_heads
        self.conv_q, self.conv_k = nn.Conv1d(channels, channels, 1), nn.Conv1d(channels, channels, 1)
        self.conv_v, self.conv_o = nn.Conv1d(channels, channels, 1), nn.Conv1d(channels, channels, 1)
        self.emb_rel_k = nn.Parameter(torch.randn(1, window_size * 2 + 1, self.k_channels) * self.k_channels ** -0.5)

    def forward(self, x, attn_mask):
        query, key, value = self.conv_q(x), self.conv_k(x), self.conv_v(x)
        b, d, t_s = key.size()
        t_t = query.size(2)
        query = query.view(b, self.n_heads, self.k_channels, t_t).transpose(2, 3)
        key = key.view(b, self.n_heads, self.k_channels, t_s).transpose(2, 3)
        value = value.view(b, self.n_heads, self.k_channels, t_s).transpose(2, 3)
        scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(self.k_channels)
        key_relative_embeddings = self._get_relative_embeddings(self.emb_rel_k, t_s)
        rel_logits = torch.matmul(query, key_relative_embeddings.unsqueeze(0).transpose(-2, -1))
        scores = scores + self._relative_position_to_absolute_position(rel_logits) / math.sqrt(self.k_channels)
        scores = scores.masked_fill(attn_mask == 0, -1e4)
        output = torch.matmul(F.softmax(scores, dim=-1), value)
        return self.conv_o(output.transpose(2, 3).contiguous().view(b, d, t_t))

    def _get_relative_embeddings(self, relative_embeddings, length):
        pad_length = max(length - (self.window_size + 1), 0)
        slice_start_position = max((self.window_size + 1) - length, 0)
        slice_end_position = slice_start_position + 2 * length - 1
        if pad_length > 0:
            padded_relative_embeddings = F.pad(
                relative_embeddings, convert_pad_shape([[0, 0], [pad_length, pad_length], [0, 0]]))
        else:
            padded_relative_embeddings = relative_embeddings
        return padded_relative_embeddings[:, slice_start_position:slice_end_position]

    def _relative_position_to_absolute_position(self, x):
        batch, heads, length, _ = x.size()
        x = F.pad(x, convert_pad_shape([[0, 0], [0, 0], [0, 0], [0, 1]]))
        x_flat = x.view([batch, heads, length * 2 * length])
        x_flat = F.pad(x_flat, convert_pad_shape([[0, 0], [0, 0], [0, length - 1]]))
        return x_flat.view([batch, heads, length + 1, 2 * length - 1])[:, :, :length, length - 1:]


class FlowGenerator(nn.Module):
    def __init__(self, num_symbols=40, hidden_channels=32, out_channels=16, n_sqz=2):
        super().__init__()
        self.hidden_channels, self.n_sqz = hidden_channels, n_sqz
        self.emb = nn.Embedding(num_symbols, hidden_channels)
        self.attn = MultiHeadAttention(hidden_channels, 2)
        self.proj_m = nn.Conv1d(hidden_channels, out_channels, 1)
        self.proj_w = nn.Conv1d(hidden_channels, 1, 3, padding=1)

    def forward(self, text, text_lengths, scales):
        noise_scale, length_scale = scales[0], scales[1]
        x = self.emb(text) * math.sqrt(self.hidden_channels)
        x = torch.transpose(x, 1, -1)
        x_mask = torch.unsqueeze(sequence_mask(text_lengths, x.size(2)), 1).to(x.dtype)
        x = x + self.attn(x * x_mask, x_mask.unsqueeze(2) * x_mask.unsqueeze(-1))
        x_m = self.proj_m(x) * x_mask
        logw = self.proj_w(torch.detach(x) * x_mask) * x_mask

        w = torch.exp(logw) * x_mask * length_scale
        w_ceil = torch.ceil(w)
        y_lengths = torch.clamp_min(torch.sum(w_ceil, [1, 2]), 1).long()
        y_lengths = (y_lengths // self.n_sqz) * self.n_sqz
        z_mask = torch.unsqueeze(sequence_mask(y_lengths, None), 1).to(x_mask.dtype)
        attn_mask = torch.unsqueeze(x_mask, -1) * torch.unsqueeze(z_mask, 2)
        attn = generate_path(w_ceil.squeeze(1), attn_mask.squeeze(1)).unsqueeze(1)
        z_m = torch.matmul(attn.squeeze(1).transpose(1, 2), x_m.transpose(1, 2)).transpose(1, 2)
        return z_m * z_mask * noise_scale, y_lengths


def make_model():
    return FlowGenerator().eval()


def example_inputs():
    return (torch.randint(0, 40, (1, 12)), torch.tensor([12]), torch.tensor([0.667, 1.0]))


def other_inputs():
    return [
        (torch.randint(0, 40, (2, 20)), torch.tensor([20, 20]), torch.tensor([0.667, 1.0])),
        (torch.randint(0, 40, (1, 3)), torch.tensor([3]), torch.tensor([0.667, 1.0])),
    ]


def probe_inputs():
    return other_inputs()
