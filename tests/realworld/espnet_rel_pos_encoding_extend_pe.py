"""ESPnet VITS/Conformer text encoder: RelPositionalEncoding keeps its table in `self.pe` and only grows it
(`extend_pe`) when an input longer than the table arrives; the exported model keeps the table of export time,
so a long sentence fails in onnxruntime ("indices element out of data bounds, idx=2595 must be within the
inclusive range [-512,511]"; the maintainer: "caused by the RelativePositionalEncoding. The maximum sequence
length is currently set to 512").

Source: https://github.com/espnet/espnet_onnx/issues/24
"""
import math

import torch
from torch import nn

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {"tokens": {0: "batch", 1: "text_length"}}
BLIND = "domains-5"


class RelPositionalEncoding(torch.nn.Module):
    def __init__(self, d_model, dropout_rate, max_len=5000):
        super().__init__()
        self.d_model = d_model
        self.xscale = math.sqrt(self.d_model)
        self.dropout = torch.nn.Dropout(p=dropout_rate)
        self.pe = None
        self.extend_pe(torch.tensor(0.0).expand(1, max_len))

    def extend_pe(self, x):
        """Reset the positional encodings."""
        if self.pe is not None:
            # self.pe contains both positive and negative parts
            # the length of self.pe is 2 * input_len - 1
            if self.pe.size(1) >= x.size(1) * 2 - 1:
                if self.pe.dtype != x.dtype or self.pe.device != x.device:
                    self.pe = self.pe.to(dtype=x.dtype, device=x.device)
                return
        pe_positive = torch.zeros(x.size(1), self.d_model)
        pe_negative = torch.zeros(x.size(1), self.d_model)
        position = torch.arange(0, x.size(1), dtype=torch.float32).unsqueeze(1)
        div_term = torch.exp(
            torch.arange(0, self.d_model, 2, dtype=torch.float32)
            * -(math.log(10000.0) / self.d_model)
        )
        pe_positive[:, 0::2] = torch.sin(position * div_term)
        pe_positive[:, 1::2] = torch.cos(position * div_term)
        pe_negative[:, 0::2] = torch.sin(-1 * position * div_term)
        pe_negative[:, 1::2] = torch.cos(-1 * position * div_term)

        pe_positive = torch.flip(pe_positive, [0]).unsqueeze(0)
        pe_negative = pe_negative[1:].unsqueeze(0)
        pe = torch.cat([pe_positive, pe_negative], dim=1)
        self.pe = pe.to(device=x.device, dtype=x.dtype)

    def forward(self, x: torch.Tensor):
        self.extend_pe(x)
        x = x * self.xscale
        pos_emb = self.pe[
            :,
            self.pe.size(1) // 2 - x.size(1) + 1 : self.pe.size(1) // 2 + x.size(1),
        ]
        return self.dropout(x), self.dropout(pos_emb)


class TextEncoderFrontend(nn.Module):
    def __init__(self, vocabs=40, attention_dim=16):
        super().__init__()
        self.emb = nn.Embedding(vocabs, attention_dim)
        self.pos_enc = RelPositionalEncoding(attention_dim, 0.1, max_len=512)
        self.linear_pos = nn.Linear(attention_dim, attention_dim, bias=False)

    def forward(self, tokens):
        x, pos_emb = self.pos_enc(self.emb(tokens))
        p = self.linear_pos(pos_emb)  # (1, 2T-1, D)
        matrix_bd = torch.matmul(x, p.transpose(-2, -1))  # (B, T, 2T-1)
        return x, matrix_bd


def make_model():
    return TextEncoderFrontend().eval()


def example_inputs():
    return (torch.randint(0, 40, (1, 60)),)


def other_inputs():
    return [(torch.randint(0, 40, (2, 700)),), (torch.randint(0, 40, (1, 23)),)]


def probe_inputs():
    return other_inputs()
