"""icefall Zipformer non-streaming ONNX wrapper: `OnnxEncoder.forward` subsamples the fbank features and builds the
attention padding mask with `make_pad_mask(x_lens)`, whose width is `max(max_len, lengths.max())` (a value read from
the lengths tensor) instead of the time size of `x`; the exported encoder breaks when served in batches (Triton),
and the fix passes `x.shape[1]` as `max_len`.

Source: https://github.com/k2-fsa/icefall/pull/1730
"""
import warnings
from typing import Tuple

import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "scalars"
DYNAMIC = {"x": {0: "N", 1: "T"}, "x_lens": {0: "N"}}
BLIND = "domains-30"


def make_pad_mask(lengths: torch.Tensor, max_len: int = 0) -> torch.Tensor:
    assert lengths.ndim == 1, lengths.ndim
    max_len = max(max_len, lengths.max())
    n = lengths.size(0)
    seq_range = torch.arange(0, max_len, device=lengths.device)
    expaned_lengths = seq_range.unsqueeze(0).expand(n, max_len)
    return expaned_lengths >= lengths.unsqueeze(-1)


class Conv2dSubsampling(nn.Module):
    def __init__(self, in_channels=80, out_channels=32, layer3_channels=8):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, 4, 3, padding=(0, 1)), nn.ReLU(),
            nn.Conv2d(4, 8, 3, stride=2), nn.ReLU(),
            nn.Conv2d(8, layer3_channels, 3, stride=(1, 2)), nn.ReLU(),
        )
        self.out = nn.Linear(layer3_channels * (((in_channels - 1) // 2 - 1) // 2), out_channels)

    def forward(self, x: torch.Tensor, x_lens: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        x = x.unsqueeze(1)
        x = self.conv(x)
        b, c, t, f = x.size()
        x = x.transpose(1, 2).reshape(b, t, c * f)
        x = self.out(x)
        if torch.jit.is_scripting() or torch.jit.is_tracing():
            x_lens = (x_lens - 7) // 2
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                x_lens = (x_lens - 7) // 2
        return x, x_lens


class Zipformer2(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, 4)
        self.ff = nn.Linear(dim, dim)

    def forward(self, x, x_lens, src_key_padding_mask):
        x = x + self.attn(x, x, x, key_padding_mask=src_key_padding_mask)[0]
        return x + torch.relu(self.ff(x)), x_lens


class OnnxEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Zipformer2()
        self.encoder_embed = Conv2dSubsampling()
        self.encoder_proj = nn.Linear(32, 16)

    def forward(self, x: torch.Tensor, x_lens: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        x, x_lens = self.encoder_embed(x, x_lens)
        src_key_padding_mask = make_pad_mask(x_lens)
        x = x.permute(1, 0, 2)
        encoder_out, encoder_out_lens = self.encoder(x, x_lens, src_key_padding_mask)
        encoder_out = encoder_out.permute(1, 0, 2)
        encoder_out = self.encoder_proj(encoder_out)
        return encoder_out, encoder_out_lens


def make_model():
    return OnnxEncoder().eval()


def example_inputs():
    return (torch.randn(2, 100, 80), torch.tensor([100, 81]))


def other_inputs():
    return [
        (torch.randn(3, 151, 80), torch.tensor([120, 151, 97])),
        (torch.randn(1, 57, 80), torch.tensor([57])),
    ]


def probe_inputs():
    return other_inputs()
