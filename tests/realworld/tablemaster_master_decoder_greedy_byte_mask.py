"""TableMASTER / MASTER text-line and table recognition: the MasterDecoder test path builds the start tokens with
`SOS = torch.zeros(batch_size).long(); SOS[:] = self.SOS` and runs `greedy_forward`, a `max_length + 1` step loop
that rebuilds the causal target mask from the growing token tensor each step (`(tgt != self.PAD)...byte()` &
`torch.tril(torch.ones((tgt_len, tgt_len), dtype=torch.uint8))`) and appends the argmax of the last step; the user
converting the MASTER models to ONNX following the MMOCR/MMDet tutorial gets an error (the uint8 `tril` mask has no
onnxruntime Trilu kernel for that dtype).

Source: https://github.com/JiaquanYe/TableMASTER-mmocr/issues/13
"""
import copy
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"feat": {0: "batch"}, "out_enc": {0: "batch", 1: "hw"}}
BLIND = "domains-78"


def clones(module, N):
    return nn.ModuleList([copy.deepcopy(module) for _ in range(N)])


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.0, max_len=500):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len).unsqueeze(1).float()
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * -math.log(10000.0) / d_model)
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer('pe', pe.unsqueeze(0))

    def forward(self, feat, **kwargs):
        feat = feat + self.pe[:, :feat.size(1)]
        return self.dropout(feat)


def self_attention(query, key, value, mask=None, dropout=None):
    d_k = value.size(-1)
    score = torch.matmul(query, key.transpose(-2, -1) / math.sqrt(d_k))
    if mask is not None:
        score = score.masked_fill(mask == 0, -6.55e4)  # for fp16
    p_attn = F.softmax(score, dim=-1)
    if dropout is not None:
        p_attn = dropout(p_attn)
    return torch.matmul(p_attn, value), p_attn


class MultiHeadAttention(nn.Module):
    def __init__(self, headers, d_model, dropout):
        super().__init__()
        self.d_k = int(d_model / headers)
        self.headers = headers
        self.linears = clones(nn.Linear(d_model, d_model), 4)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key, value, mask=None):
        nbatches = query.size(0)
        query, key, value = \
            [l(x).view(nbatches, -1, self.headers, self.d_k).transpose(1, 2)
             for l, x in zip(self.linears, (query, key, value))]
        x, self.attn = self_attention(query, key, value, mask=mask, dropout=self.dropout)
        x = x.transpose(1, 2).contiguous().view(nbatches, -1, self.headers * self.d_k)
        return self.linears[-1](x)


class DecoderLayer(nn.Module):
    def __init__(self, size, headers, dropout):
        super().__init__()
        self.self_attn = MultiHeadAttention(headers, size, dropout)
        self.src_attn = MultiHeadAttention(headers, size, dropout)
        self.feed_forward = nn.Sequential(nn.Linear(size, 2 * size), nn.ReLU(), nn.Linear(2 * size, size))
        self.norms = clones(nn.LayerNorm(size), 3)

    def forward(self, x, feature, src_mask, tgt_mask):
        x = x + self.self_attn(*(self.norms[0](x),) * 3, tgt_mask)
        x = x + self.src_attn(self.norms[1](x), feature, feature, src_mask)
        return x + self.feed_forward(self.norms[2](x))


class MasterDecoder(nn.Module):
    def __init__(self, N=2, d_model=32, headers=4, num_classes=40, start_idx=38, padding_idx=39,
                 max_seq_len=8):
        super().__init__()
        self.layers = clones(DecoderLayer(d_model, headers, 0.0), N)
        self.norm = nn.LayerNorm(d_model)
        self.fc = nn.Linear(d_model, num_classes)
        self.lut = nn.Embedding(num_classes, d_model)
        self.d_model = d_model
        self.positional_encoding = PositionalEncoding(d_model=d_model)
        self.SOS = start_idx
        self.PAD = padding_idx
        self.max_length = max_seq_len

    def make_mask(self, src, tgt):
        trg_pad_mask = (tgt != self.PAD).unsqueeze(1).unsqueeze(3).byte()
        tgt_len = tgt.size(1)
        trg_sub_mask = torch.tril(torch.ones((tgt_len, tgt_len), dtype=torch.uint8, device=src.device))
        tgt_mask = trg_pad_mask & trg_sub_mask
        return None, tgt_mask

    def decode(self, input, feature, src_mask, tgt_mask):
        x = self.lut(input) * math.sqrt(self.d_model)
        x = self.positional_encoding(x)
        for i, layer in enumerate(self.layers):
            x = layer(x, feature, src_mask, tgt_mask)
        x = self.norm(x)
        return self.fc(x)

    def greedy_forward(self, SOS, feature, mask):
        input = SOS
        output = None
        for i in range(self.max_length + 1):
            _, target_mask = self.make_mask(feature, input)
            out = self.decode(input, feature, None, target_mask)
            output = out
            prob = F.softmax(out, dim=-1)
            _, next_word = torch.max(prob, dim=-1)
            input = torch.cat([input, next_word[:, -1].unsqueeze(-1)], dim=1)
        return output

    def forward_test(self, feat, out_enc, img_metas):
        src_mask = None
        batch_size = out_enc.shape[0]
        SOS = torch.zeros(batch_size).long().to(out_enc.device)
        SOS[:] = self.SOS
        SOS = SOS.unsqueeze(1)
        output = self.greedy_forward(SOS, out_enc, src_mask)
        return output

    def forward(self, feat, out_enc, targets_dict=None, img_metas=None, train_mode=False):
        self.train_mode = train_mode
        return self.forward_test(feat, out_enc, img_metas)


def make_model():
    return MasterDecoder().eval()


def example_inputs():
    return (torch.randn(2, 32, 4, 10), torch.randn(2, 40, 32))


def other_inputs():
    return [(torch.randn(3, 32, 4, 10), torch.randn(3, 48, 32)),
            (torch.randn(1, 32, 4, 10), torch.randn(1, 24, 32))]


def probe_inputs():
    return other_inputs()
