"""Stylish-TTS (StyleTTS2-style) duration encoder: after each AdaLayerNorm the style is re-appended with
`torch.cat([x, s.permute(1, -1, 0)], dim=1)`; the commit "Fix transpose bug in ONNX" changes the negative
permute index to `s.permute(1, 2, 0)` because the exported ONNX Transpose is broken (the legacy exporter writes
perm {1, -1, 0}, which onnxruntime rejects). The packed-sequence LSTM path is trimmed to a plain LSTM call.

Source: https://github.com/Stylish-TTS/stylish-tts/commit/6af3c516d130a34d4310ba93805650329773166e
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "views"
FAMILY = "views"
DYNAMIC = {
    "x": {0: "batch", 2: "tokens"},
    "style": {0: "batch"},
    "text_lengths": {0: "batch"},
    "m": {0: "batch", 1: "tokens"},
}
BLIND = "domains-51"


class AdaLayerNorm(nn.Module):
    def __init__(self, style_dim, channels, eps=1e-5):
        super().__init__()
        self.channels = channels
        self.eps = eps

        self.fc = nn.Linear(style_dim, channels * 2)

    def forward(self, x, s):
        x = x.transpose(-1, -2)
        x = x.transpose(1, -1)

        h = self.fc(s)
        h = h.view(h.size(0), h.size(1), 1)
        gamma, beta = torch.chunk(h, chunks=2, dim=1)
        gamma, beta = gamma.transpose(1, -1), beta.transpose(1, -1)

        x = F.layer_norm(x, (self.channels,), eps=self.eps)
        x = (1 + gamma) * x + beta
        return x.transpose(1, -1).transpose(-1, -2)


class DurationEncoder(nn.Module):
    def __init__(self, sty_dim=8, d_model=16, nlayers=2, dropout=0.1):
        super().__init__()
        self.lstms = nn.ModuleList()
        for _ in range(nlayers):
            self.lstms.append(
                nn.LSTM(d_model + sty_dim, d_model // 2, num_layers=1, batch_first=True, bidirectional=True)
            )
            self.lstms.append(AdaLayerNorm(sty_dim, d_model))

        self.dropout = dropout
        self.d_model = d_model
        self.sty_dim = sty_dim

    def forward(self, x, style, text_lengths, m):
        masks = m.to(text_lengths.device)

        x = x.permute(2, 0, 1)
        s = style.expand(x.shape[0], x.shape[1], -1)
        x = torch.cat([x, s], dim=-1)
        x.masked_fill_(masks.unsqueeze(-1).transpose(0, 1), 0.0)

        x = x.transpose(0, 1)
        x = x.transpose(-1, -2)

        for block in self.lstms:
            if isinstance(block, AdaLayerNorm):
                x = block(x.transpose(-1, -2), style).transpose(-1, -2)
                x = torch.cat([x, s.permute(1, -1, 0)], dim=1)
                x.masked_fill_(masks.unsqueeze(-1).transpose(-1, -2), 0.0)
            else:
                x = x.transpose(-1, -2)
                x, _ = block(x)
                x = F.dropout(x, p=self.dropout, training=self.training)
                x = x.transpose(-1, -2)

        return x.transpose(-1, -2)


def make_model():
    return DurationEncoder().eval()


def _inputs(lengths):
    b, t = len(lengths), max(lengths)
    text_lengths = torch.tensor(lengths, dtype=torch.long)
    m = torch.arange(t)[None, :] >= text_lengths[:, None]  # True on padding
    return (torch.randn(b, 16, t), torch.randn(b, 8), text_lengths, m)


def example_inputs():
    return _inputs([12, 9])


def other_inputs():
    return [_inputs([17, 17, 11]), _inputs([6])]


def probe_inputs():
    return other_inputs()
