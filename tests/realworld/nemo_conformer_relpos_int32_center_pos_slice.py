"""NeMo Conformer RelPositionalEncoding: `extend_pe` stores `self.center_pos = torch.tensor(..., dtype=torch.int32)`
and forward slices `self.pe[:, start_pos:end_pos]` with bounds computed from it; the exported Conformer fails to load
in onnxruntime: "Type parameter (Tind) of Optype (Slice) bound to different types (tensor(int32) and tensor(int64))".

Source: https://github.com/NVIDIA-NeMo/Speech/pull/5309
"""
import math

import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch", 1: "time"}}
BLIND = "domains-21"


class PositionalEncoding(torch.nn.Module):
    def __init__(self, d_model, dropout_rate, max_len=5000, xscale=None, dropout_rate_emb=0.0):
        super(PositionalEncoding, self).__init__()
        self.d_model = d_model
        self.xscale = xscale
        self.dropout = torch.nn.Dropout(p=dropout_rate)
        self.max_len = max_len
        if dropout_rate_emb > 0:
            self.dropout_emb = nn.Dropout(dropout_rate_emb)
        else:
            self.dropout_emb = None

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


class RelPositionalEncoding(PositionalEncoding):
    def extend_pe(self, length, device):
        """Reset and extend the positional encodings if needed."""
        needed_size = 2 * length - 1
        if hasattr(self, 'pe') and self.pe.size(1) >= needed_size:
            return
        positions = torch.arange(length - 1, -length, -1, dtype=torch.float32, device=device).unsqueeze(1)
        self.create_pe(positions=positions)
        self.center_pos = torch.tensor(self.pe.size(1) // 2 + 1, dtype=torch.int32, device=device)

    def forward(self, x):
        if self.xscale:
            x = x * self.xscale
        start_pos = self.center_pos - x.size(1)
        end_pos = self.center_pos + x.size(1) - 1
        pos_emb = self.pe[:, start_pos:end_pos]
        if self.dropout_emb:
            pos_emb = self.dropout_emb(pos_emb)
        return self.dropout(x), pos_emb


def make_model():
    m = RelPositionalEncoding(d_model=16, dropout_rate=0.0, max_len=64, xscale=math.sqrt(16))
    m.extend_pe(64, torch.device("cpu"))  # ConformerEncoder.set_max_audio_length does this at setup
    return m.eval()


def example_inputs():
    return (torch.randn(2, 20, 16),)


def other_inputs():
    return [(torch.randn(3, 33, 16),), (torch.randn(1, 7, 16),)]


def probe_inputs():
    return other_inputs()
