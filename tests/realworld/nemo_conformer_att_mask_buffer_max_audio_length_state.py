"""NeMo Conformer encoder: `forward` calls `update_max_seq_length`, which on a longer input regrows the
`seq_range`/`att_mask` buffers and the positional encoding (`set_max_audio_length`), then slices
`self.att_mask[:, :max_audio_length, :max_audio_length]`; the exported ONNX model keeps the buffers sized at
export time, so audio longer than that fails in onnxruntime ("And node ... Attempting to broadcast an axis by a
dimension other than 1. 5000 by 10279").

Source: https://github.com/k2-fsa/sherpa-onnx/issues/1422
"""
import math

import torch
from torch import nn

CLASS = "state"
FAMILY = "views"
DYNAMIC = {"audio_signal": {0: "batch", 2: "time"}, "length": {0: "batch"}}
BLIND = "domains-8"


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, xscale=None):
        super().__init__()
        self.d_model = d_model
        self.xscale = xscale
        self.extend_pe(max_len, device=torch.device("cpu"))

    def create_pe(self, positions):
        pos_length = positions.size(0)
        pe = torch.zeros(pos_length, self.d_model, device=positions.device)
        div_term = torch.exp(
            torch.arange(0, self.d_model, 2, dtype=torch.float32, device=positions.device)
            * -(math.log(10000.0) / self.d_model)
        )
        pe[:, 0::2] = torch.sin(positions * div_term)
        pe[:, 1::2] = torch.cos(positions * div_term)
        pe = pe.unsqueeze(0)
        if hasattr(self, 'pe'):
            self.pe = pe
        else:
            self.register_buffer('pe', pe, persistent=False)

    def extend_pe(self, length, device):
        needed_size = length
        if hasattr(self, 'pe') and self.pe.size(1) >= needed_size:
            return
        positions = torch.arange(0, needed_size, dtype=torch.float32, device=device).unsqueeze(1)
        self.create_pe(positions=positions)

    def forward(self, x, cache_len=0):
        input_len = x.size(1) + cache_len
        if self.xscale:
            x = x * self.xscale
        pos_emb = self.pe[:, :input_len]
        x = x + pos_emb
        return x, pos_emb


class ConformerLayer(nn.Module):
    def __init__(self, d_model, n_heads):
        super().__init__()
        self.h, self.d_k = n_heads, d_model // n_heads
        self.norm = nn.LayerNorm(d_model)
        self.linear_qkv = nn.Linear(d_model, 3 * d_model)
        self.linear_out = nn.Linear(d_model, d_model)

    def forward(self, x, att_mask, pos_emb, pad_mask):
        b = x.size(0)
        q, k, v = self.linear_qkv(self.norm(x)).view(b, -1, 3, self.h, self.d_k).permute(2, 0, 3, 1, 4)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.d_k)
        scores = scores.masked_fill(att_mask.unsqueeze(1), -10000.0)
        attn = torch.softmax(scores, dim=-1).masked_fill(att_mask.unsqueeze(1), 0.0)
        out = torch.matmul(attn, v).transpose(1, 2).reshape(b, -1, self.h * self.d_k)
        x = x + self.linear_out(out)
        return x.masked_fill(pad_mask.unsqueeze(-1), 0.0)


class ConformerEncoder(nn.Module):
    def __init__(self, feat_in=16, d_model=32, n_heads=4, n_layers=2, pos_emb_max_len=16, att_context_size=(-1, -1)):
        super().__init__()
        self.att_context_size = list(att_context_size)
        self.pre_encode = nn.Linear(feat_in, d_model)
        self.pos_enc = PositionalEncoding(d_model, max_len=pos_emb_max_len, xscale=math.sqrt(d_model))
        self.layers = nn.ModuleList([ConformerLayer(d_model, n_heads) for _ in range(n_layers)])
        self.set_max_audio_length(pos_emb_max_len)

    def set_max_audio_length(self, max_audio_length):
        self.max_audio_length = max_audio_length
        device = next(self.parameters()).device
        seq_range = torch.arange(0, self.max_audio_length, device=device)
        if hasattr(self, 'seq_range'):
            self.seq_range = seq_range
        else:
            self.register_buffer('seq_range', seq_range, persistent=False)
        self.pos_enc.extend_pe(max_audio_length, device)

        att_mask = torch.ones(1, max_audio_length, max_audio_length, dtype=torch.bool, device=device)
        if self.att_context_size[0] >= 0:
            att_mask = att_mask.triu(diagonal=-self.att_context_size[0])
        if self.att_context_size[1] >= 0:
            att_mask = att_mask.tril(diagonal=self.att_context_size[1])
        if hasattr(self, 'att_mask'):
            self.att_mask = att_mask
        else:
            self.register_buffer('att_mask', att_mask, persistent=False)

    def update_max_seq_length(self, seq_length: int, device):
        if seq_length > self.max_audio_length:
            self.set_max_audio_length(seq_length)

    def make_pad_mask(self, max_audio_length, seq_lens):
        mask = self.seq_range[:max_audio_length].expand(seq_lens.size(0), -1) < seq_lens.unsqueeze(-1)
        return mask

    def forward(self, audio_signal, length):
        self.update_max_seq_length(seq_length=audio_signal.size(2), device=audio_signal.device)
        audio_signal = torch.transpose(audio_signal, 1, 2)
        audio_signal = self.pre_encode(audio_signal)
        max_audio_length = audio_signal.size(1)
        padding_length = length
        audio_signal, pos_emb = self.pos_enc(x=audio_signal)

        pad_mask = self.make_pad_mask(max_audio_length=max_audio_length, seq_lens=padding_length)
        pad_mask_for_att_mask = pad_mask.unsqueeze(1).repeat([1, max_audio_length, 1])
        pad_mask_for_att_mask = torch.logical_and(pad_mask_for_att_mask, pad_mask_for_att_mask.transpose(1, 2))
        att_mask = self.att_mask[:, :max_audio_length, :max_audio_length]
        att_mask = torch.logical_and(pad_mask_for_att_mask, att_mask.to(pad_mask_for_att_mask.device))
        pad_mask = ~pad_mask
        att_mask = ~att_mask

        for lth, layer in enumerate(self.layers):
            audio_signal = layer(x=audio_signal, att_mask=att_mask, pos_emb=pos_emb, pad_mask=pad_mask)

        audio_signal = torch.transpose(audio_signal, 1, 2)
        return audio_signal, length


def make_model():
    return ConformerEncoder().eval()


def example_inputs():
    return (torch.randn(1, 16, 12), torch.tensor([12]))


def other_inputs():
    return [(torch.randn(2, 16, 40), torch.tensor([40, 31])), (torch.randn(3, 16, 9), torch.tensor([9, 5, 7]))]


def probe_inputs():
    return other_inputs()
