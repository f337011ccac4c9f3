"""Matcha-TTS `synthesise` (ONNX export via a monkey-patched forward taking `x, x_lengths, scales`): the mel
length is `y_max_length = int(y_lengths.max())` from the predicted durations, rounded up to a multiple of 4 for
the U-Net by the Python `while True: if length % 4 == 0: return length; length += 1` loop of
`fix_len_compatibility`, and `sequence_mask` builds `torch.arange(int(max_length))`; the report says dynamic
input shape is not possible for the exported model.

Source: https://github.com/shivammehta25/Matcha-TTS/issues/6
"""
import math

import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "scalars"
DYNAMIC = {"x": {0: "batch", 1: "text_length"}, "x_lengths": {0: "batch"}}
BLIND = "domains-7"


def sequence_mask(length, max_length=None):
    if max_length is None:
        max_length = length.max()
    x = torch.arange(int(max_length), dtype=length.dtype, device=length.device)
    return x.unsqueeze(0) < length.unsqueeze(1)


def fix_len_compatibility(length, num_downsamplings_in_unet=2):
    while True:
        if length % (2**num_downsamplings_in_unet) == 0:
            return length
        length += 1


def convert_pad_shape(pad_shape):
    inverted_shape = pad_shape[::-1]
    pad_shape = [item for sublist in inverted_shape for item in sublist]
    return pad_shape


def generate_path(duration, mask):
    device = duration.device

    b, t_x, t_y = mask.shape
    cum_duration = torch.cumsum(duration, 1)
    path = torch.zeros(b, t_x, t_y, dtype=mask.dtype).to(device=device)

    cum_duration_flat = cum_duration.view(b * t_x)
    path = sequence_mask(cum_duration_flat, t_y).to(mask.dtype)
    path = path.view(b, t_x, t_y)
    path = path - torch.nn.functional.pad(path, convert_pad_shape([[0, 0], [1, 0], [0, 0]]))[:, :-1]
    path = path * mask
    return path


class TextEncoder(nn.Module):
    def __init__(self, n_vocab=40, n_channels=16, n_feats=8):
        super().__init__()
        self.n_channels = n_channels
        self.emb = nn.Embedding(n_vocab, n_channels)
        self.encoder = nn.Conv1d(n_channels, n_channels, 5, padding=2)
        self.proj_m = nn.Conv1d(n_channels, n_feats, 1)
        self.proj_w = nn.Conv1d(n_channels, 1, 3, padding=1)

    def forward(self, x, x_lengths):
        x = self.emb(x) * math.sqrt(self.n_channels)
        x = torch.transpose(x, 1, -1)
        x_mask = torch.unsqueeze(sequence_mask(x_lengths, x.size(2)), 1).to(x.dtype)
        x = torch.relu(self.encoder(x * x_mask)) * x_mask
        mu = self.proj_m(x) * x_mask
        logw = self.proj_w(torch.detach(x)) * x_mask
        return mu, logw, x_mask


class TinyUNet(nn.Module):
    """Two stride-2 downsamplings: the mel length must be a multiple of 4."""

    def __init__(self, n_feats=8, ch=16):
        super().__init__()
        self.down1 = nn.Conv1d(n_feats, ch, 3, stride=2, padding=1)
        self.down2 = nn.Conv1d(ch, ch, 3, stride=2, padding=1)
        self.up2 = nn.ConvTranspose1d(ch, ch, 4, stride=2, padding=1)
        self.up1 = nn.ConvTranspose1d(ch, n_feats, 4, stride=2, padding=1)

    def forward(self, mu, mask):
        h1 = torch.relu(self.down1(mu * mask))
        h2 = torch.relu(self.down2(h1))
        u2 = torch.relu(self.up2(h2)) + h1
        return (self.up1(u2) + mu) * mask


class MatchaTTS(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = TextEncoder()
        self.decoder = TinyUNet()

    def forward(self, x, x_lengths, scales):
        length_scale = scales[1]
        mu_x, logw, x_mask = self.encoder(x, x_lengths)

        w = torch.exp(logw) * x_mask
        w_ceil = torch.ceil(w) * length_scale
        y_lengths = torch.clamp_min(torch.sum(w_ceil, [1, 2]), 1).long()
        y_max_length = int(y_lengths.max())
        y_max_length_ = fix_len_compatibility(y_max_length)

        # Using obtained durations `w` construct alignment map `attn`
        y_mask = sequence_mask(y_lengths, y_max_length_).unsqueeze(1).to(x_mask.dtype)
        attn_mask = x_mask.unsqueeze(-1) * y_mask.unsqueeze(2)
        attn = generate_path(w_ceil.squeeze(1), attn_mask.squeeze(1)).unsqueeze(1)

        mu_y = torch.matmul(attn.squeeze(1).transpose(1, 2), mu_x.transpose(1, 2))
        mu_y = mu_y.transpose(1, 2)

        decoder_outputs = self.decoder(mu_y, y_mask)
        decoder_outputs = decoder_outputs[:, :, :y_max_length]
        return decoder_outputs, y_lengths


def make_model():
    return MatchaTTS().eval()


def _inputs(lengths):
    t = max(lengths)
    x = torch.randint(0, 40, (len(lengths), t), dtype=torch.long)
    return (x, torch.tensor(lengths, dtype=torch.long), torch.tensor([0.667, 1.0]))


def example_inputs():
    return _inputs([12, 9])


def other_inputs():
    return [_inputs([20, 20, 15]), _inputs([7])]


def probe_inputs():
    return other_inputs()
