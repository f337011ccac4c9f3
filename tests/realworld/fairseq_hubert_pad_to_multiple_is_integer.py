"""fairseq HuBERT `extract_features` pads the frame sequence with wav2vec2's `pad_to_multiple`
(`m = tsz / multiple`, `math.ceil(m)`, `if m.is_integer()`) before the transformer layers and
un-pads with `x[:, :-pad_length]`; torch.onnx.export with a dynamic sequence fails with
"AttributeError: 'Tensor' object has no attribute 'is_integer'".

Source: https://github.com/facebookresearch/fairseq/issues/5595
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"feats": {1: "seq"}, "padding_mask": {1: "seq"}}
BLIND = "domains-6"


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


class TransformerSentenceEncoderLayer(nn.Module):
    def __init__(self, embed_dim=32, num_heads=4):
        super().__init__()
        self.num_heads = num_heads
        self.qkv = nn.Linear(embed_dim, 3 * embed_dim)
        self.out_proj = nn.Linear(embed_dim, embed_dim)
        self.self_attn_layer_norm = nn.LayerNorm(embed_dim)
        self.fc1 = nn.Linear(embed_dim, 64)
        self.fc2 = nn.Linear(64, embed_dim)
        self.final_layer_norm = nn.LayerNorm(embed_dim)

    def forward(self, x, self_attn_padding_mask=None):
        # x: T x B x C
        tsz, bsz, embed_dim = x.shape
        residual = x
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = (t.reshape(tsz, bsz * self.num_heads, -1).transpose(0, 1) for t in (q, k, v))
        attn = torch.bmm(q, k.transpose(1, 2)) * (q.shape[-1] ** -0.5)
        attn = attn.view(bsz, self.num_heads, tsz, tsz)
        attn = attn.masked_fill(self_attn_padding_mask.unsqueeze(1).unsqueeze(2), float("-inf"))
        attn = attn.view(bsz * self.num_heads, tsz, tsz).softmax(dim=-1)
        x = torch.bmm(attn, v).transpose(0, 1).reshape(tsz, bsz, embed_dim)
        x = self.self_attn_layer_norm(residual + self.out_proj(x))
        residual = x
        x = self.fc2(torch.relu(self.fc1(x)))
        return self.final_layer_norm(residual + x)


class TransformerEncoder(nn.Module):
    def __init__(self, embed_dim=32, required_seq_len_multiple=2):
        super().__init__()
        self.pos_conv = nn.Sequential(nn.Conv1d(embed_dim, embed_dim, 8, padding=4, groups=4), nn.GELU())
        self.layer_norm = nn.LayerNorm(embed_dim)
        self.layers = nn.ModuleList([TransformerSentenceEncoderLayer(embed_dim) for _ in range(2)])
        self.required_seq_len_multiple = required_seq_len_multiple

    def extract_features(self, x, padding_mask=None):
        x_conv = self.pos_conv(x.transpose(1, 2))[:, :, :-1]
        x_conv = x_conv.transpose(1, 2)
        x = x + x_conv
        x = self.layer_norm(x)

        # pad to the sequence length dimension
        x, pad_length = pad_to_multiple(x, self.required_seq_len_multiple, dim=-2, value=0)
        if pad_length > 0 and padding_mask is None:
            padding_mask = x.new_zeros((x.size(0), x.size(1)), dtype=torch.bool)
            padding_mask[:, -pad_length:] = True
        else:
            padding_mask, _ = pad_to_multiple(padding_mask, self.required_seq_len_multiple, dim=-1, value=True)

        # B x T x C -> T x B x C
        x = x.transpose(0, 1)
        for layer in self.layers:
            x = layer(x, self_attn_padding_mask=padding_mask)
        # T x B x C -> B x T x C
        x = x.transpose(0, 1)

        # undo paddding
        if pad_length > 0:
            x = x[:, :-pad_length]
        return x


class HubertAdapter(nn.Module):
    def __init__(self, embed_dim=32):
        super().__init__()
        self.post_extract_proj = nn.Linear(16, embed_dim)
        self.encoder = TransformerEncoder(embed_dim)

    def forward(self, feats, padding_mask):
        x = self.post_extract_proj(feats)
        x = self.encoder.extract_features(x, padding_mask=padding_mask)
        return x


def make_model():
    return HubertAdapter().eval()


def example_inputs():
    return (torch.randn(1, 25, 16), torch.zeros(1, 25, dtype=torch.bool))


def other_inputs():
    return [
        (torch.randn(1, 40, 16), torch.zeros(1, 40, dtype=torch.bool)),
        (torch.randn(1, 13, 16), torch.zeros(1, 13, dtype=torch.bool)),
    ]


def probe_inputs():
    return other_inputs()
