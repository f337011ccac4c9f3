"""Cohere Transcribe Conformer ASR encoder: RelPositionMultiHeadAttention only expands the shared relative
positional embedding when `pos_emb.size(0) == 1 and batch_size > 1`; traced with the batch-1 dummy the
branch is False, so the exported encoder's `linear_pos(...).view(batch_size, ...)` breaks for batch > 1
(the project's export script monkey-patches forward to expand unconditionally; torch.export is "stricter
about Python-bool branches on dynamic shapes").

Source: https://github.com/christopherthompson81/vernacula/pull/15
"""
import math

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"input_features": {0: "batch", 2: "time_frames"}, "input_lengths": {0: "batch"}}
BLIND = "domains-39"


class ConvSubsampling(nn.Module):
    def __init__(self, feat_in, d_model, conv_channels=8):
        super().__init__()
        self._conv_channels = conv_channels
        self.conv = nn.Sequential(
            nn.Conv2d(1, conv_channels, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(conv_channels, conv_channels, 3, stride=2, padding=1), nn.ReLU())
        self.out = nn.Linear(conv_channels * math.ceil(feat_in / 4), d_model)

    def _needs_conv_split(self, x):
        b, t, f = x.shape
        projected = b * self._conv_channels * ((t + 1) // 2) * ((f + 1) // 2)
        return projected > 2**31

    def forward(self, x, lengths):
        x = x.unsqueeze(1)  # (B, 1, T, F)
        if self._needs_conv_split(x.squeeze(1)):
            x = torch.cat([self.conv(chunk) for chunk in torch.split(x, 1, 0)])
        else:
            x = self.conv(x)
        b, c, t, f = x.size()
        x = self.out(x.transpose(1, 2).reshape(b, t, -1))
        for _ in range(2):
            lengths = torch.div(lengths + 2 * 1 - 3, 2, rounding_mode="floor") + 1
        return x, lengths


class RelPositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=512):
        super().__init__()
        self.d_model = d_model
        self.xscale = math.sqrt(d_model)
        self._materialize_pe(max_len, torch.device("cpu"), torch.float32)

    def _create_pe(self, positions, dtype):
        pos_length = positions.size(0)
        pe = torch.zeros(pos_length, self.d_model, device=positions.device)
        div_term = torch.exp(torch.arange(0, self.d_model, 2, dtype=torch.float32, device=positions.device)
                             * -(math.log(10000.0) / self.d_model))
        pe[:, 0::2] = torch.sin(positions * div_term)
        pe[:, 1::2] = torch.cos(positions * div_term)
        return pe.unsqueeze(0).to(dtype)

    def _materialize_pe(self, length, device, dtype):
        needed_size = 2 * length - 1
        if hasattr(self, "pe") and self.pe.size(1) >= needed_size:
            return
        positions = torch.arange(length - 1, -length, -1, dtype=torch.float32, device=device).unsqueeze(1)
        pe = self._create_pe(positions=positions, dtype=dtype)
        if hasattr(self, "pe"):
            self.pe = pe
        else:
            self.register_buffer("pe", pe, persistent=False)

    def forward(self, x):
        input_len = x.size(1)
        self._materialize_pe(input_len, x.device, x.dtype)
        x = x * self.xscale
        center_pos = self.pe.size(1) // 2 + 1
        start_pos = center_pos - input_len
        end_pos = center_pos + input_len - 1
        pos_emb = self.pe[:, start_pos:end_pos]
        return x, pos_emb


class RelPositionMultiHeadAttention(nn.Module):
    def __init__(self, n_head, n_feat):
        super().__init__()
        self.d_k = n_feat // n_head
        self.h = n_head
        self.scaling = 1.0 / math.sqrt(self.d_k)
        self.linear_q = nn.Linear(n_feat, n_feat)
        self.linear_k = nn.Linear(n_feat, n_feat)
        self.linear_v = nn.Linear(n_feat, n_feat)
        self.linear_out = nn.Linear(n_feat, n_feat)
        self.linear_pos = nn.Linear(n_feat, n_feat, bias=False)
        self.pos_bias_u = nn.Parameter(torch.randn(self.h, self.d_k) * 0.02)
        self.pos_bias_v = nn.Parameter(torch.randn(self.h, self.d_k) * 0.02)
        self.dropout = nn.Dropout(0.0)

    def rel_shift(self, x):
        b, h, qlen, pos_len = x.size()  # (b, h, t1, t2)
        x = torch.nn.functional.pad(x, pad=(1, 0))  # (b, h, t1, t2+1)
        x = x.view(b, h, -1, qlen)  # (b, h, t2+1, t1)
        x = x[:, :, 1:].view(b, h, qlen, pos_len)  # (b, h, t1, t2)
        return x

    def forward(self, x, pos_emb, mask=None):
        batch_size = x.size(0)
        q = self.linear_q(x).view(batch_size, -1, self.h, self.d_k).transpose(1, 2)
        k = self.linear_k(x).view(batch_size, -1, self.h, self.d_k).transpose(1, 2)
        v = self.linear_v(x).view(batch_size, -1, self.h, self.d_k).transpose(1, 2)
        if pos_emb.size(0) == 1 and batch_size > 1:
            pos_emb = pos_emb.expand(batch_size, -1, -1)
        p = self.linear_pos(pos_emb).view(batch_size, -1, self.h, self.d_k).transpose(1, 2)
        q_with_u = q + self.pos_bias_u.unsqueeze(0).unsqueeze(2)
        q_with_v = q + self.pos_bias_v.unsqueeze(0).unsqueeze(2)
        matrix_ac = torch.matmul(q_with_u, k.transpose(-1, -2))
        matrix_bd = torch.matmul(q_with_v, p.transpose(-1, -2))
        matrix_bd = self.rel_shift(matrix_bd)
        matrix_bd = matrix_bd[:, :, :, :matrix_ac.size(-1)]
        scores = (matrix_ac + matrix_bd) * self.scaling
        if mask is not None:
            expanded_mask = mask.unsqueeze(1)
            scores = scores.masked_fill(expanded_mask, -1e9)
        attn = torch.softmax(scores, dim=-1)
        if mask is not None:
            attn = attn.masked_fill(expanded_mask, 0.0)
        x = torch.matmul(self.dropout(attn), v)
        x = x.transpose(1, 2).contiguous().view(batch_size, -1, self.h * self.d_k)
        return self.linear_out(x)


class ConformerLayer(nn.Module):
    def __init__(self, d_model, n_heads):
        super().__init__()
        self.norm_self_att = nn.LayerNorm(d_model)
        self.self_attn = RelPositionMultiHeadAttention(n_heads, d_model)
        self.norm_ff = nn.LayerNorm(d_model)
        self.feed_forward = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.SiLU(), nn.Linear(4 * d_model, d_model))

    def forward(self, x, pos_emb, mask=None):
        x = x + self.self_attn(self.norm_self_att(x), pos_emb, mask)
        return x + self.feed_forward(self.norm_ff(x))


class ConformerEncoder(nn.Module):
    def __init__(self, feat_in=16, d_model=32, n_heads=4, n_layers=2):
        super().__init__()
        self.pre_encode = ConvSubsampling(feat_in, d_model)
        self.pos_enc = RelPositionalEncoding(d_model)
        self.layers = nn.ModuleList([ConformerLayer(d_model, n_heads) for _ in range(n_layers)])

    def forward(self, audio_signal, length):
        audio_signal = audio_signal.transpose(1, 2)  # (B, T, n_mels)
        audio_signal, length = self.pre_encode(audio_signal, length)
        audio_signal, pos_emb = self.pos_enc(audio_signal)
        max_len = audio_signal.size(1)
        pad_mask = torch.arange(0, max_len, device=audio_signal.device).expand(length.size(0), -1) >= length.unsqueeze(-1)
        att_mask = pad_mask.unsqueeze(1).repeat(1, max_len, 1)
        for layer in self.layers:
            audio_signal = layer(audio_signal, pos_emb=pos_emb, mask=att_mask)
        return audio_signal, length


class EncoderWrapper(nn.Module):
    def __init__(self, enc):
        super().__init__()
        self.encoder = enc

    def forward(self, input_features, input_lengths):
        hidden_states, _lengths = self.encoder(input_features, length=input_lengths)
        return hidden_states


def make_model():
    return EncoderWrapper(ConformerEncoder()).eval()


def example_inputs():
    # the export script's dummy: one 5 s segment
    return (torch.randn(1, 16, 200), torch.tensor([200]))


def other_inputs():
    return [(torch.randn(3, 16, 160), torch.tensor([160, 120, 97])),
            (torch.randn(2, 16, 244), torch.tensor([244, 200]))]


def probe_inputs():
    return other_inputs()
