"""Parakeet (NeMo FastConformer) exported to ONNX: `ConformerEncoder.forward` calls `update_max_seq_length`, which
regrows the relative positional encoding (`pos_enc.extend_pe`) only when the input is longer than
`max_audio_length`; the exported model keeps the `pe` buffer built at export time, so longer audio fails in
onnxruntime at the self-attention `matrix_ac + matrix_bd` Add ("Attempting to broadcast an axis by a dimension
other than 1. 1849 by 6849").

Source: https://github.com/jason-ni/parakeet-rs/issues/2
"""
import math

import torch
from torch import nn

CLASS = "state"
FAMILY = "views"
DYNAMIC = {"audio_signal": {0: "batch", 2: "time"}, "length": {0: "batch"}}
BLIND = "domains-12"


class RelPositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout_rate=0.0, max_len=5000, xscale=None):
        super().__init__()
        self.d_model = d_model
        self.xscale = xscale
        self.dropout = nn.Dropout(p=dropout_rate)
        self.max_len = max_len

    def create_pe(self, positions, dtype):
        pos_length = positions.size(0)
        pe = torch.zeros(pos_length, self.d_model, device=positions.device)
        div_term = torch.exp(
            torch.arange(0, self.d_model, 2, dtype=torch.float32, device=positions.device)
            * -(math.log(10000.0) / self.d_model)
        )
        pe[:, 0::2] = torch.sin(positions * div_term)
        pe[:, 1::2] = torch.cos(positions * div_term)
        pe = pe.unsqueeze(0).to(dtype)
        if hasattr(self, 'pe'):
            self.pe = pe
        else:
            self.register_buffer('pe', pe, persistent=False)

    def extend_pe(self, length, device, dtype):
        """Reset and extend the positional encodings if needed."""
        needed_size = 2 * length - 1
        if hasattr(self, 'pe') and self.pe.size(1) >= needed_size:
            return
        positions = torch.arange(length - 1, -length, -1, dtype=torch.float32, device=device).unsqueeze(1)
        self.create_pe(positions=positions, dtype=dtype)

    def forward(self, x, cache_len=0):
        if self.xscale:
            x = x * self.xscale
        input_len = x.size(1) + cache_len
        center_pos = self.pe.size(1) // 2 + 1
        start_pos = center_pos - input_len
        end_pos = center_pos + input_len - 1
        pos_emb = self.pe[:, start_pos:end_pos]
        return self.dropout(x), pos_emb


class RelPositionMultiHeadAttention(nn.Module):
    def __init__(self, n_head, n_feat):
        super().__init__()
        self.d_k = n_feat // n_head
        self.s_d_k = math.sqrt(self.d_k)
        self.h = n_head
        self.linear_q = nn.Linear(n_feat, n_feat)
        self.linear_k = nn.Linear(n_feat, n_feat)
        self.linear_v = nn.Linear(n_feat, n_feat)
        self.linear_out = nn.Linear(n_feat, n_feat)
        self.linear_pos = nn.Linear(n_feat, n_feat, bias=False)
        self.pos_bias_u = nn.Parameter(torch.randn(self.h, self.d_k) * 0.1)
        self.pos_bias_v = nn.Parameter(torch.randn(self.h, self.d_k) * 0.1)

    def rel_shift(self, x):
        b, h, qlen, pos_len = x.size()  # (b, h, t1, t2)
        x = torch.nn.functional.pad(x, pad=(1, 0))  # (b, h, t1, t2+1)
        x = x.view(b, h, -1, qlen)  # (b, h, t2+1, t1)
        x = x[:, :, 1:].view(b, h, qlen, pos_len)  # (b, h, t1, t2)
        return x

    def forward(self, query, key, value, mask, pos_emb):
        n_batch = query.size(0)
        q = self.linear_q(query).view(n_batch, -1, self.h, self.d_k)
        k = self.linear_k(key).view(n_batch, -1, self.h, self.d_k).transpose(1, 2)
        v = self.linear_v(value).view(n_batch, -1, self.h, self.d_k).transpose(1, 2)
        n_batch_pos = pos_emb.size(0)
        p = self.linear_pos(pos_emb).view(n_batch_pos, -1, self.h, self.d_k)
        p = p.transpose(1, 2)  # (batch, head, time1, d_k)
        q_with_bias_u = (q + self.pos_bias_u).transpose(1, 2)
        q_with_bias_v = (q + self.pos_bias_v).transpose(1, 2)
        matrix_bd = torch.matmul(q_with_bias_v, p.transpose(-2, -1))
        matrix_bd = self.rel_shift(matrix_bd)
        matrix_ac = torch.matmul(q_with_bias_u, k.transpose(-2, -1))
        # drops extra elements in the matrix_bd to match the matrix_ac's size
        matrix_bd = matrix_bd[:, :, :, : matrix_ac.size(-1)]
        scores = (matrix_ac + matrix_bd) / self.s_d_k  # (batch, head, time1, time2)
        scores = scores.masked_fill(mask.unsqueeze(1), -10000.0)
        attn = torch.softmax(scores, dim=-1).masked_fill(mask.unsqueeze(1), 0.0)
        x = torch.matmul(attn, v).transpose(1, 2).reshape(n_batch, -1, self.h * self.d_k)
        return self.linear_out(x)


class ConformerEncoder(nn.Module):
    def __init__(self, feat_in=16, d_model=32, n_heads=4, n_layers=2, pos_emb_max_len=16):
        super().__init__()
        self.pre_encode = nn.Conv1d(feat_in, d_model, kernel_size=3, stride=2, padding=1)
        self.pos_enc = RelPositionalEncoding(d_model, max_len=pos_emb_max_len, xscale=math.sqrt(d_model))
        self.layers = nn.ModuleList([RelPositionMultiHeadAttention(n_heads, d_model) for _ in range(n_layers)])
        self.norms = nn.ModuleList([nn.LayerNorm(d_model) for _ in range(n_layers)])
        self.set_max_audio_length(pos_emb_max_len)

    def set_max_audio_length(self, max_audio_length):
        self.max_audio_length = max_audio_length
        device = next(self.parameters()).device
        dtype = next(self.parameters()).dtype
        self.pos_enc.extend_pe(max_audio_length, device, dtype)

    def update_max_seq_length(self, seq_length: int, device):
        if seq_length > self.max_audio_length:
            self.set_max_audio_length(seq_length)

    def forward(self, audio_signal, length):
        self.update_max_seq_length(seq_length=audio_signal.size(2), device=audio_signal.device)
        audio_signal = self.pre_encode(audio_signal).transpose(1, 2)
        length = torch.div(length + 1, 2, rounding_mode='floor')
        max_audio_length = audio_signal.size(1)
        audio_signal, pos_emb = self.pos_enc(x=audio_signal)
        pad_mask = torch.arange(0, max_audio_length, device=audio_signal.device).expand(
            length.size(0), -1) < length.unsqueeze(-1)
        att_mask = pad_mask.unsqueeze(1).repeat([1, max_audio_length, 1])
        att_mask = ~torch.logical_and(att_mask, att_mask.transpose(1, 2))
        for norm, layer in zip(self.norms, self.layers):
            x = norm(audio_signal)
            audio_signal = audio_signal + layer(x, x, x, att_mask, pos_emb)
        return audio_signal.transpose(1, 2), length


def make_model():
    return ConformerEncoder().eval()


def example_inputs():
    return (torch.randn(1, 16, 12), torch.tensor([12]))


def other_inputs():
    return [(torch.randn(2, 16, 80), torch.tensor([80, 61])), (torch.randn(3, 16, 9), torch.tensor([9, 5, 7]))]


def probe_inputs():
    return other_inputs()
