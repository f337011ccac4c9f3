"""Kokoro TTS (StyleTTS2-derived) TextEncoder: conv stack over phoneme embeddings, then the lengths are turned
into a NumPy array with `input_lengths.cpu().numpy()` and fed to pack_padded_sequence / LSTM / pad_packed_sequence,
and the result is copied into a zero pad sized by the mask. The PR that made Kokoro exportable lists "removes usages
of numpy conversions" among the changes needed for torch.onnx.export.

Source: https://github.com/hexgrad/kokoro/pull/87
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import weight_norm

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {"x": {0: "batch", 1: "text"}, "input_lengths": {0: "batch"}, "m": {0: "batch", 1: "text"}}
BLIND = "domains-9"


class LayerNorm(nn.Module):
    def __init__(self, channels, eps=1e-5):
        super().__init__()
        self.channels = channels
        self.eps = eps
        self.gamma = nn.Parameter(torch.ones(channels))
        self.beta = nn.Parameter(torch.zeros(channels))

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
            self.cnn.append(nn.Sequential(
                weight_norm(nn.Conv1d(channels, channels, kernel_size=kernel_size, padding=padding)),
                LayerNorm(channels),
                actv,
                nn.Dropout(0.2),
            ))
        self.lstm = nn.LSTM(channels, channels//2, 1, batch_first=True, bidirectional=True)

    def forward(self, x, input_lengths, m):
        x = self.embedding(x)  # [B, T, emb]
        x = x.transpose(1, 2)  # [B, emb, T]
        m = m.to(input_lengths.device).unsqueeze(1)
        x.masked_fill_(m, 0.0)
        for c in self.cnn:
            x = c(x)
            x.masked_fill_(m, 0.0)
        x = x.transpose(1, 2)  # [B, T, chn]
        input_lengths = input_lengths.cpu().numpy()
        x = nn.utils.rnn.pack_padded_sequence(x, input_lengths, batch_first=True, enforce_sorted=False)
        self.lstm.flatten_parameters()
        x, _ = self.lstm(x)
        x, _ = nn.utils.rnn.pad_packed_sequence(x, batch_first=True)
        x = x.transpose(-1, -2)
        x_pad = torch.zeros([x.shape[0], x.shape[1], m.shape[-1]])
        x_pad[:, :, :x.shape[-1]] = x
        x = x_pad.to(x.device)
        x.masked_fill_(m, 0.0)
        return x


def make_model():
    return TextEncoder(channels=32, kernel_size=5, depth=3, n_symbols=60).eval()


def _inputs(lengths, t):
    b = len(lengths)
    x = torch.randint(1, 60, (b, t))
    input_lengths = torch.tensor(lengths, dtype=torch.long)
    text_mask = torch.arange(t).unsqueeze(0).expand(b, -1).type_as(input_lengths)
    text_mask = torch.gt(text_mask + 1, input_lengths.unsqueeze(1))
    return (x, input_lengths, text_mask)


def example_inputs():
    return _inputs([12, 9], 12)


def other_inputs():
    return [_inputs([20, 20, 14], 20), _inputs([7], 7)]


def probe_inputs():
    return other_inputs()
