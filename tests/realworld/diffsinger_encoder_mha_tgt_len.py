"""DiffSinger (singing-voice TTS) FastSpeech-style encoder layer `EncSALayer` runs `torch.nn.MultiheadAttention` on
`x.transpose(0, 1)` with a key padding mask; the PR says the traced model bakes `tgt_len` into the output Reshape, so a
model exported at T=40 errors with 'requested shape:{40,2,32}' at any other length.

Source: https://github.com/openvpi/DiffSinger/pull/305
"""
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn import LayerNorm, MultiheadAttention, GELU

CLASS = "views"
FAMILY = "views"
DYNAMIC = {"x": {0: "batch", 1: "frames"}, "encoder_padding_mask": {0: "batch", 1: "frames"}}
BLIND = "domains-3"


class TransformerFFNLayer(nn.Module):
    def __init__(self, hidden_size, filter_size, kernel_size=1, dropout=0., act='gelu'):
        super().__init__()
        self.kernel_size = kernel_size
        self.dropout = dropout
        self.act_fn = GELU()
        self.ffn_1 = nn.Conv1d(hidden_size, filter_size, kernel_size, padding=kernel_size // 2)
        self.ffn_2 = nn.Linear(filter_size, hidden_size)

    def forward(self, x):
        # x: B x T x C
        x = self.ffn_1(x.transpose(1, 2)).transpose(1, 2)
        x = x * self.kernel_size ** -0.5
        x = self.act_fn(x)
        x = F.dropout(x, self.dropout, training=self.training)
        x = self.ffn_2(x)
        return x


class EncSALayer(nn.Module):
    def __init__(self, c, num_heads, dropout, attention_dropout=0.1,
                 relu_dropout=0.1, kernel_size=9, act='gelu'):
        super().__init__()
        self.dropout = dropout
        self.layer_norm1 = LayerNorm(c)
        self.self_attn = MultiheadAttention(
            c, num_heads, dropout=attention_dropout, bias=False, batch_first=False
        )
        self.layer_norm2 = LayerNorm(c)
        self.ffn = TransformerFFNLayer(c, 4 * c, kernel_size=kernel_size, dropout=relu_dropout, act=act)

    def forward(self, x, encoder_padding_mask):
        residual = x
        x = self.layer_norm1(x)
        x = x.transpose(0, 1)
        x, _, = self.self_attn(
            query=x,
            key=x,
            value=x,
            key_padding_mask=encoder_padding_mask
        )
        x = x.transpose(0, 1)
        x = F.dropout(x, self.dropout, training=self.training)
        x = residual + x
        x = x * (1 - encoder_padding_mask.float())[..., None]

        residual = x
        x = self.layer_norm2(x)
        x = self.ffn(x)
        x = F.dropout(x, self.dropout, training=self.training)
        x = residual + x
        x = x * (1 - encoder_padding_mask.float())[..., None]
        return x


def make_model():
    return EncSALayer(64, 2, dropout=0.1).eval()


def _inputs(b, t):
    lengths = torch.randint(1, t + 1, (b,))
    lengths[0] = t
    mask = torch.arange(t).unsqueeze(0) >= lengths.unsqueeze(1)
    return (torch.randn(b, t, 64), mask)


def example_inputs():
    return _inputs(2, 40)


def other_inputs():
    return [_inputs(3, 80), _inputs(1, 17)]


def probe_inputs():
    return other_inputs()
