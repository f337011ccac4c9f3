"""Qwen3-Omni thinker audio tower, exported on its own: `forward(input_features, feature_lens)` cuts the mel frames
into windows of n_window*2 with `torch.tensor([self.n_window * 2] * chunk_num.sum(), ...)`, patches the tail length
by index, then `input_features.T.split(chunk_lengths.tolist(), dim=0)`, `pad_sequence`s the chunks and the per-chunk
masks and keeps the valid frames with `padded_embed[padded_mask_after_cnn]`. The report: export hits
`Tensor.__index__` on `chunk_num.sum()` in the list repeat, then the chunk lengths flow through split,
pad_sequence and the convs. (Encoder layers and cu_seqlens windowing left out; ln_post + projections kept.)

Source: https://github.com/pytorch/pytorch/pull/185004
"""
import math

import torch
from torch import nn
import torch.nn.functional as F

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"input_features": {1: "frames"}}
BLIND = "domains-31"


def _get_feat_extract_output_lengths(input_lengths):
    """
    Computes the output length of the convolutional layers and the output length of the audio encoder
    """

    input_lengths_leave = input_lengths % 100
    feat_lengths = (input_lengths_leave - 1) // 2 + 1
    output_lengths = ((feat_lengths - 1) // 2 + 1 - 1) // 2 + 1 + (input_lengths // 100) * 13
    return output_lengths


class SinusoidsPositionEmbedding(nn.Module):
    def __init__(self, length, channels, max_timescale=10000):
        super().__init__()
        log_timescale_increment = math.log(max_timescale) / (channels // 2 - 1)
        inv_timescales = torch.exp(-log_timescale_increment * torch.arange(channels // 2).float())
        scaled_time = torch.arange(length)[:, None] * inv_timescales[None, :]
        self.register_buffer(
            "positional_embedding",
            torch.cat([torch.sin(scaled_time), torch.cos(scaled_time)], dim=1),
            persistent=False,
        )


class Qwen3OmniMoeAudioEncoder(nn.Module):
    def __init__(self, num_mel_bins=16, d_model=32, downsample_hidden_size=8, output_dim=24, n_window=8,
                 max_source_positions=64, conv_chunksize=500):
        super().__init__()
        self.n_window = n_window
        self.conv_chunksize = conv_chunksize
        self.positional_embedding = SinusoidsPositionEmbedding(max_source_positions, d_model)
        self.ln_post = nn.LayerNorm(d_model)
        self.conv2d1 = nn.Conv2d(1, downsample_hidden_size, 3, 2, padding=1)
        self.conv2d2 = nn.Conv2d(downsample_hidden_size, downsample_hidden_size, 3, 2, padding=1)
        self.conv2d3 = nn.Conv2d(downsample_hidden_size, downsample_hidden_size, 3, 2, padding=1)
        self.conv_out = nn.Linear(
            downsample_hidden_size * ((((num_mel_bins + 1) // 2 + 1) // 2 + 1) // 2), d_model, bias=False
        )
        self.proj1 = nn.Linear(d_model, d_model)
        self.act = nn.GELU()
        self.proj2 = nn.Linear(d_model, output_dim)

    def forward(self, input_features, feature_lens=None):
        chunk_num = torch.ceil(feature_lens / (self.n_window * 2)).long()

        chunk_lengths = torch.tensor(
            [self.n_window * 2] * chunk_num.sum(),
            dtype=torch.long,
            device=feature_lens.device,
        )
        tail_chunk_index = F.pad(chunk_num, (1, 0), value=-1).cumsum(0)[1:]
        chunk_lengths[tail_chunk_index] = feature_lens % (self.n_window * 2)
        chunk_lengths[chunk_lengths == 0] = self.n_window * 2

        chunk_list = input_features.T.split(chunk_lengths.tolist(), dim=0)
        padded_feature = nn.utils.rnn.pad_sequence(chunk_list, batch_first=True).transpose(1, 2)
        feature_lens_after_cnn = _get_feat_extract_output_lengths(chunk_lengths)
        padded_mask_after_cnn = nn.utils.rnn.pad_sequence(
            [torch.ones(length, dtype=torch.bool, device=padded_feature.device) for length in feature_lens_after_cnn],
            batch_first=True,
        )
        padded_feature = padded_feature.unsqueeze(1)
        # Split to chunk to avoid OOM during convolution
        padded_embeds = []
        for chunk in padded_feature.split(self.conv_chunksize, dim=0):
            padded_embed = F.gelu(self.conv2d1(chunk))
            padded_embed = F.gelu(self.conv2d2(padded_embed))
            padded_embed = F.gelu(self.conv2d3(padded_embed))
            padded_embeds.append(padded_embed)
        padded_embed = torch.cat(padded_embeds, dim=0)
        b, c, f, t = padded_embed.size()
        padded_embed = self.conv_out(padded_embed.permute(0, 3, 1, 2).contiguous().view(b, t, c * f))

        positional_embedding = (
            self.positional_embedding.positional_embedding[: padded_embed.shape[1], :]
            .unsqueeze(0)
            .to(padded_embed.dtype)
        )
        padded_embed = padded_embed + positional_embedding
        hidden_states = padded_embed[padded_mask_after_cnn]

        hidden_states = self.ln_post(hidden_states)
        hidden_states = self.proj1(hidden_states)
        hidden_states = self.act(hidden_states)
        hidden_states = self.proj2(hidden_states)
        return hidden_states


def make_model():
    return Qwen3OmniMoeAudioEncoder().eval()


def _mel(frames):
    return torch.randn(16, frames), torch.tensor([frames])


def example_inputs():
    return _mel(37)


def other_inputs():
    return [_mel(52), _mel(23)]


def probe_inputs():
    return other_inputs()
