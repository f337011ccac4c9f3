"""braindecode's CodeBrain EEG foundation model: each EEGSSM ResidualBlock builds its sliding-window
attention mask with `generate_local_window_mask(L, ...)`, a Python `for i in range(seq_len)` loop that
fills a `torch.full((seq_len, seq_len), -inf)` tensor row by row, where L is the number of patch
tokens (channels x patches, so it follows the recording length); the commit "Fix torch.compile:
vectorize generate_local_window_mask" replaced the loop (the code before it is this case). The
SGConv (FFT) branch of the block is left out; einops `rearrange` is written as permute.

Source: https://github.com/braindecode/braindecode/commit/b7e787cfc7569a1479978809fe7b08ebbb11612e
"""
import math

import torch
from torch import nn
from torch.nn.utils.parametrizations import weight_norm

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 2: "tokens"}}
BLIND = "domains-77"


class Conv(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size=3, dilation=1):
        super(Conv, self).__init__()
        self.padding = dilation * (kernel_size - 1) // 2
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size, dilation=dilation, padding=self.padding)
        self.conv = weight_norm(self.conv)
        nn.init.kaiming_normal_(self.conv.parametrizations.weight.original1)

    def forward(self, x):
        return self.conv(x)


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-8):
        super(RMSNorm, self).__init__()
        self.eps = eps
        self.scale = nn.Parameter(torch.ones(1, dim, 1))

    def forward(self, x):
        norm = x.norm(dim=1, keepdim=True)
        rms = norm / (x.shape[1] ** 0.5)
        x_normed = x / (rms + self.eps)
        return self.scale * x_normed


class ResidualBlock(nn.Module):
    def __init__(self, res_channels, skip_channels, s4_dropout=0.0, swa_window_size: int = 1):
        super(ResidualBlock, self).__init__()
        self.res_channels = res_channels
        self.swa_window_size = swa_window_size
        self.sn = RMSNorm(res_channels)
        self.conv_layer = Conv(self.res_channels, 2 * self.res_channels, kernel_size=3)
        self.attention = nn.MultiheadAttention(embed_dim=2 * self.res_channels, num_heads=4,
                                               dropout=s4_dropout, bias=True, batch_first=True)
        self.gelu = nn.GELU()
        self.res_conv = weight_norm(nn.Conv1d(res_channels, res_channels, kernel_size=1))
        self.skip_conv = weight_norm(nn.Conv1d(res_channels, skip_channels, kernel_size=1))

    def generate_local_window_mask(self, seq_len, window_size):
        assert window_size % 2 == 1, "window_size should be odd number, like 7, 9, 11"

        half_window = window_size // 2

        mask = torch.full((seq_len, seq_len), float("-inf"))

        for i in range(seq_len):
            start = max(0, i - half_window)
            end = min(seq_len, i + half_window + 1)
            mask[i, start:end] = 0

        return mask

    def forward(self, input_data):
        x, original = input_data
        h = x
        _, C, L = x.shape
        x = self.sn(x)
        assert C == self.res_channels
        h = h + original
        h = self.conv_layer(h)
        h_t = self.gelu(h)  # (SGConv branch omitted)

        h_s = h_t.permute(0, 2, 1)  # "b c l -> b l c"
        swa_mask = self.generate_local_window_mask(L, self.swa_window_size).to(x.device)
        h_s, _ = self.attention(h_s, h_s, h_s, attn_mask=swa_mask)
        h_s = h_s.permute(0, 2, 1)  # "b l c -> b c l"

        h = h_t + h_s
        out = torch.tanh(h[:, : self.res_channels, :]) * torch.sigmoid(h[:, self.res_channels :, :])
        res = self.res_conv(out)
        skip = self.skip_conv(out)
        return (x + res) * math.sqrt(0.5), skip


class ResidualGroup(nn.Module):
    def __init__(self, res_channels=16, skip_channels=16, num_res_layers=2, swa_window_size=5):
        super(ResidualGroup, self).__init__()
        self.num_res_layers = num_res_layers
        self.residual_blocks = nn.ModuleList()
        for _ in range(self.num_res_layers):
            self.residual_blocks.append(ResidualBlock(res_channels, skip_channels, swa_window_size=swa_window_size))

    def forward(self, x):
        noise = x
        h = noise
        skip = 0
        for n in range(self.num_res_layers):
            h, skip_n = self.residual_blocks[n]((h, noise))
            skip = skip_n + skip
        return skip * math.sqrt(1.0 / self.num_res_layers)


def make_model():
    return ResidualGroup().eval()


def example_inputs():
    return (torch.randn(2, 16, 40),)


def other_inputs():
    return [(torch.randn(3, 16, 57),), (torch.randn(1, 16, 23),)]


def probe_inputs():
    return other_inputs()
