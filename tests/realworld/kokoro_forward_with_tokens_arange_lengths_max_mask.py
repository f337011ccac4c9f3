"""Kokoro TTS (StyleTTS2-style) `forward_with_tokens` builds `input_lengths = torch.full(..., input_ids.shape[-1])`
and the text mask from `torch.arange(input_lengths.max())`; exporting it with a dynamic `sequence_length` on
torch >= 2.11 (dynamo exporter) fails in torch.export with "Could not guard on data-dependent expression
Ne(u0, 12) (unhinted: Ne(u0, s70))" when the value-sized mask meets the token axis.

Source: https://github.com/adrianlyjak/kokoro-onnx-export/issues/3
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "scalars"
DYNAMIC = {"input_ids": {1: "sequence_length"}}
BLIND = "domains-12"


class TextEncoder(nn.Module):
    def __init__(self, n_symbols=40, channels=16, kernel_size=5):
        super().__init__()
        self.embedding = nn.Embedding(n_symbols, channels)
        self.cnn = nn.Conv1d(channels, channels, kernel_size, padding=kernel_size // 2)
        self.lstm = nn.LSTM(channels, channels // 2, 1, batch_first=True, bidirectional=True)

    def forward(self, x, input_lengths, m):
        x = self.embedding(x)  # [B, T, emb]
        x = x.transpose(1, 2)  # [B, emb, T]
        m = m.unsqueeze(1)
        x.masked_fill_(m, 0.0)
        x = self.cnn(x)
        x.masked_fill_(m, 0.0)
        x = x.transpose(1, 2)  # [B, T, chn]
        x, _ = self.lstm(x)
        x = x.transpose(-1, -2)
        x.masked_fill_(m, 0.0)
        return x


class CustomAlbert(nn.Module):
    # one ALBERT-like self-attention layer (the PL-BERT `self.bert` in Kokoro)
    def __init__(self, n_symbols=40, hidden=16, heads=2):
        super().__init__()
        self.embeddings = nn.Embedding(n_symbols, hidden)
        self.heads = heads
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.dense = nn.Linear(hidden, hidden)
        self.norm = nn.LayerNorm(hidden)

    def forward(self, input_ids, attention_mask):
        h = self.embeddings(input_ids)
        B, T, C = h.shape
        q, k, v = self.qkv(h).view(B, T, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4)
        extended_attention_mask = attention_mask[:, None, None, :].to(h.dtype)
        extended_attention_mask = (1.0 - extended_attention_mask) * torch.finfo(h.dtype).min
        scores = q @ k.transpose(-1, -2) / (C // self.heads) ** 0.5
        scores = scores + extended_attention_mask
        ctx = (scores.softmax(-1) @ v).transpose(1, 2).reshape(B, T, C)
        return self.norm(h + self.dense(ctx))


class KModel(nn.Module):
    def __init__(self, n_symbols=40, channels=16, style_dim=8):
        super().__init__()
        self.bert = CustomAlbert(n_symbols, channels)
        self.bert_encoder = nn.Linear(channels, channels)
        self.text_encoder = TextEncoder(n_symbols, channels)
        self.lstm = nn.LSTM(channels + style_dim, channels // 2, 1, batch_first=True, bidirectional=True)
        self.duration_proj = nn.Linear(channels, 4)

    @torch.no_grad()
    def forward_with_tokens(self, input_ids, ref_s, speed=1):
        input_lengths = torch.full(
            (input_ids.shape[0],),
            input_ids.shape[-1],
            device=input_ids.device,
            dtype=torch.long
        )
        text_mask = torch.arange(input_lengths.max()).unsqueeze(0).expand(input_lengths.shape[0], -1).type_as(input_lengths)
        text_mask = torch.gt(text_mask + 1, input_lengths.unsqueeze(1)).to(input_ids.device)
        bert_dur = self.bert(input_ids, attention_mask=(~text_mask).int())
        d_en = self.bert_encoder(bert_dur).transpose(-1, -2)
        d = self.text_encoder(input_ids, input_lengths, text_mask) + d_en
        s = ref_s.unsqueeze(-1).expand(-1, -1, d.shape[-1])
        x, _ = self.lstm(torch.cat([d, s], dim=1).transpose(-1, -2))
        duration = self.duration_proj(x)
        duration = torch.sigmoid(duration).sum(axis=-1) / speed
        pred_dur = torch.round(duration).clamp(min=1).long()
        return d, pred_dur


class KModelForONNXWithDuration(nn.Module):
    def __init__(self, kmodel):
        super().__init__()
        self.kmodel = kmodel

    def forward(self, input_ids, ref_s):
        d, duration = self.kmodel.forward_with_tokens(input_ids, ref_s, 0.95)
        return d, duration


def make_model():
    return KModelForONNXWithDuration(KModel()).eval()


def example_inputs():
    return (torch.randint(1, 40, (1, 12)), torch.randn(1, 8))


def other_inputs():
    return [(torch.randint(1, 40, (1, 30)), torch.randn(1, 8)),
            (torch.randint(1, 40, (1, 5)), torch.randn(1, 8))]


def probe_inputs():
    return other_inputs()
