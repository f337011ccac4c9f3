"""GPT-SoVITS v2 VITS part (models_onnx.py): `TextEncoder.forward(y, text, ge, speed)` stretches the SSL features
for the speaking rate with `if(speed!=1): y = F.interpolate(y, size=int(y.shape[-1] / speed)+1, mode="linear")`;
with `speed` exported as an input, the branch and the `int(...)` size are decided once at export, so ailia's
exporter had to rewrite it (torch.onnx.is_in_onnx_export() path picking the size by `speed == 1`).

Source: https://github.com/ailia-ai/ailia-models/issues/1522
"""
import torch
from torch import nn
from torch.nn import functional as F

CLASS = "data-dependent-size"
FAMILY = "scalars"
DYNAMIC = {"y": {2: "ssl_length"}, "text": {1: "text_length"}}
BLIND = "domains-22"


class Encoder(nn.Module):
    def __init__(self, hidden_channels, n_layers, kernel_size=3):
        super().__init__()
        self.convs = nn.ModuleList(
            nn.Conv1d(hidden_channels, hidden_channels, kernel_size, padding=kernel_size // 2) for _ in range(n_layers))

    def forward(self, x, x_mask):
        for conv in self.convs:
            x = x + torch.relu(conv(x * x_mask))
        return x * x_mask


class MRTE(nn.Module):
    def __init__(self, hidden_size=32, ge_channels=512):
        super().__init__()
        self.attn = nn.MultiheadAttention(hidden_size, 2, batch_first=True)
        self.ge_proj = nn.Conv1d(ge_channels, hidden_size, 1)

    def forward(self, ssl_enc, ssl_mask, text, text_mask, ge):
        x, _ = self.attn(ssl_enc.transpose(1, 2), text.transpose(1, 2), text.transpose(1, 2))
        return (ssl_enc + x.transpose(1, 2) + self.ge_proj(ge)) * ssl_mask


class TextEncoder(nn.Module):
    def __init__(self, out_channels=16, hidden_channels=32, n_layers=2, n_symbols=100):
        super().__init__()
        self.out_channels = out_channels
        self.ssl_proj = nn.Conv1d(768, hidden_channels, 1)
        self.encoder_ssl = Encoder(hidden_channels, n_layers // 2)
        self.encoder_text = Encoder(hidden_channels, n_layers)
        self.text_embedding = nn.Embedding(n_symbols, hidden_channels)
        self.mrte = MRTE(hidden_channels)
        self.encoder2 = Encoder(hidden_channels, n_layers // 2)
        self.proj = nn.Conv1d(hidden_channels, out_channels * 2, 1)

    def forward(self, y, text, ge, speed):
        y_mask = torch.ones_like(y[:1, :1, :])
        y = self.ssl_proj(y * y_mask) * y_mask
        y = self.encoder_ssl(y * y_mask, y_mask)
        text_mask = torch.ones_like(text).to(y.dtype).unsqueeze(0)
        text = self.text_embedding(text).transpose(1, 2)
        text = self.encoder_text(text * text_mask, text_mask)
        y = self.mrte(y, y_mask, text, text_mask, ge)
        y = self.encoder2(y * y_mask, y_mask)
        if(speed!=1):
            y = F.interpolate(y, size=int(y.shape[-1] / speed)+1, mode="linear")
            y_mask = F.interpolate(y_mask, size=y.shape[-1], mode="nearest")
        stats = self.proj(y) * y_mask
        m, logs = torch.split(stats, self.out_channels, dim=1)
        return y, m, logs, y_mask


def make_model():
    return TextEncoder().eval()


def example_inputs():
    return (torch.randn(1, 768, 40), torch.randint(0, 100, (1, 12)), torch.randn(1, 512, 1), torch.tensor(1.1))


def other_inputs():
    return [
        (torch.randn(1, 768, 55), torch.randint(0, 100, (1, 20)), torch.randn(1, 512, 1), torch.tensor(0.8)),
        (torch.randn(1, 768, 23), torch.randint(0, 100, (1, 7)), torch.randn(1, 512, 1), torch.tensor(1.0)),
    ]


def probe_inputs():
    return other_inputs()
