"""Stylish-TTS (StyleTTS2-style) TextEncoder as exported to ONNX: the LSTM runs on
`nn.utils.rnn.pack_padded_sequence(x, input_lengths.cpu(), enforce_sorted=False)` and the unpacked
result is copied into `torch.zeros([..., m.shape[-1]])` with a slice assignment; the maintainers
replaced this forward with an `infer()` method without lengths, masks or packing "to help with ONNX
compatibility".

Source: https://github.com/Stylish-TTS/stylish-tts/commit/2deeaa263425ad2fba741e85794c7ed3bbb8b018
"""
import torch
from torch import nn
from torch.nn import functional as F
from torch.nn.utils.parametrizations import weight_norm

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"x": {1: "tokens"}, "m": {1: "tokens"}}
BLIND = "domains-58"


class LayerNorm(torch.nn.Module):
    def __init__(self, channels, eps=1e-5):
        super().__init__()
        self.channels = channels
        self.eps = eps

        self.gamma = torch.nn.Parameter(torch.ones(channels))
        self.beta = torch.nn.Parameter(torch.zeros(channels))

    def forward(self, x):
        x = x.transpose(1, -1)
        x = F.layer_norm(x, (self.channels,), self.gamma, self.beta, self.eps)
        return x.transpose(1, -1)


class TextEncoder(nn.Module):
    def __init__(self, channels, kernel_size, depth, n_symbols, actv=nn.LeakyReLU(0.2)):
        super().__init__()
        self.embedding = nn.Embedding(n_symbols, channels)

        padding = (kernel_size - 1) // 2
        self.cnn = nn.ModuleList()
        for _ in range(depth):
            self.cnn.append(
                nn.Sequential(
                    weight_norm(
                        nn.Conv1d(
                            channels, channels, kernel_size=kernel_size, padding=padding
                        )
                    ),
                    LayerNorm(channels),
                    actv,
                    nn.Dropout(0.2),
                )
            )

        self.lstm = nn.LSTM(
            channels, channels // 2, 1, batch_first=True, bidirectional=True
        )

    def forward(self, x, input_lengths, m):
        x = self.embedding(x)  # [B, T, emb]
        x = x.transpose(1, 2)  # [B, emb, T]
        m = m.to(input_lengths.device).unsqueeze(1)
        x.masked_fill_(m, 0.0)

        for c in self.cnn:
            x = c(x)
            x.masked_fill_(m, 0.0)

        x = x.transpose(1, 2)  # [B, T, chn]

        input_lengths = input_lengths.cpu()
        x = nn.utils.rnn.pack_padded_sequence(
            x, input_lengths, batch_first=True, enforce_sorted=False
        )

        self.lstm.flatten_parameters()
        x, _ = self.lstm(x)
        x, _ = nn.utils.rnn.pad_packed_sequence(x, batch_first=True)

        x = x.transpose(-1, -2)
        x_pad = torch.zeros([x.shape[0], x.shape[1], m.shape[-1]])

        x_pad[:, :, : x.shape[-1]] = x
        x = x_pad.to(x.device)

        x.masked_fill_(m, 0.0)

        return x


def make_model():
    return TextEncoder(channels=32, kernel_size=5, depth=3, n_symbols=100).eval()


def _inputs(t):
    texts = torch.randint(0, 100, (1, t))
    text_lengths = torch.tensor([t])
    text_mask = torch.zeros(1, t, dtype=torch.bool)
    return (texts, text_lengths, text_mask)


def example_inputs():
    return _inputs(17)


def other_inputs():
    return [_inputs(30), _inputs(9)]


def probe_inputs():
    return other_inputs()
