"""SCOREQ speech-quality model (fairseq wav2vec 2.0 encoder + embedding head): the transformer encoder pads the
frames with fairseq's `pad_to_multiple` (`m = tsz / multiple; ... if m.is_integer(): return x, 0`), which breaks
`torch.onnx.export(model, dummy_input, ...)`; the reporter had to monkey-patch it to `if (m % 1).item() == 0`
(fairseq's own thread: "Tensor object has no attribute is_integer").

Source: https://github.com/alessandroragano/scoreq/issues/1
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"wav": {0: "batch", 2: "samples"}}
BLIND = "domains-17"


def pad_to_multiple(x, multiple, dim=-1, value=0):
    # Inspired from https://github.com/lucidrains/local-attention/blob/master/local_attention/local_attention.py#L41
    if x is None:
        return None, 0
    tsz = x.size(dim)
    m = tsz / multiple
    remainder = math.ceil(m) * multiple - tsz
    if m.is_integer():
        return x, 0
    pad_offset = (0,) * (-1 - dim) * 2

    return F.pad(x, (*pad_offset, 0, remainder), value=value), remainder


class TransformerEncoder(nn.Module):
    def __init__(self, dim=32, required_seq_len_multiple=2):
        super().__init__()
        self.required_seq_len_multiple = required_seq_len_multiple
        self.pos_conv = nn.Conv1d(dim, dim, kernel_size=4, padding=2, groups=4)
        self.layer_norm = nn.LayerNorm(dim)
        self.layers = nn.ModuleList([nn.TransformerEncoderLayer(dim, 4, 64, dropout=0.0)])

    def forward(self, x, padding_mask=None):
        x_conv = self.pos_conv(x.transpose(1, 2))[:, :, :-1]
        x = x + x_conv.transpose(1, 2)
        x = self.layer_norm(x)

        # pad to the sequence length dimension
        x, pad_length = pad_to_multiple(x, self.required_seq_len_multiple, dim=-2, value=0)
        if pad_length > 0 and padding_mask is None:
            padding_mask = x.new_zeros((x.size(0), x.size(1)), dtype=torch.bool)
            padding_mask[:, -pad_length:] = True
        else:
            padding_mask, _ = pad_to_multiple(padding_mask, self.required_seq_len_multiple, dim=-1, value=True)

        x = x.transpose(0, 1)  # B x T x C -> T x B x C
        for layer in self.layers:
            x = layer(x, src_key_padding_mask=padding_mask)
        x = x.transpose(0, 1)

        # undo paddding
        if pad_length > 0:
            x = x[:, :-pad_length]
        return x


class Scoreq(nn.Module):
    def __init__(self, dim=32, emb_dim=16):
        super().__init__()
        self.feature_extractor = nn.Sequential(
            nn.Conv1d(1, dim, 10, stride=5), nn.GELU(), nn.Conv1d(dim, dim, 3, stride=2), nn.GELU())
        self.post_extract_proj = nn.Linear(dim, dim)
        self.encoder = TransformerEncoder(dim)
        self.out_layer = nn.Sequential(nn.Linear(dim, emb_dim), nn.ReLU(), nn.Linear(emb_dim, emb_dim))

    def forward(self, wav):
        features = self.feature_extractor(wav).transpose(1, 2)
        x = self.encoder(self.post_extract_proj(features))
        x = x.mean(dim=1)
        return self.out_layer(x)


def make_model():
    return Scoreq().eval()


def example_inputs():
    return (torch.randn(1, 1, 1600),)


def other_inputs():
    # 1600 samples -> 159 frames (odd, padded); 1610 -> 160 frames (even); 999 -> 99 frames
    return [(torch.randn(2, 1, 1610),), (torch.randn(3, 1, 999),)]


def probe_inputs():
    return other_inputs()
