"""Charformer GBST (tokenizer-free, byte-level subword pooling) from ChenghaoMou/embeddings: the block position
encoding tiles its 4-row `pe` buffer with `repeat=math.ceil(x.shape[0] / self.pe.shape[0])` and slices
`pe_[: x.shape[0]]`, i.e. Python math on the byte sequence length; exporting GBST to ONNX with a dynamic
sequence length failed ("ONNX export of Slice with dynamic inputs"), and the author rewrote the count with
`torch.div(...)` and added an export script with dynamic axes. einops calls are spelled out with permute/repeat.

Source: https://github.com/ChenghaoMou/embeddings/issues/1
"""
import math

import torch
import torch.nn as nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"input": {0: "batch_size", 1: "sequence_length"}}
BLIND = "domains-47"


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=5000):
        super(PositionalEncoding, self).__init__()
        self.dropout = nn.Dropout(p=dropout)
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0).transpose(0, 1)
        self.register_buffer("pe", pe)

    def forward(self, x):
        x = x.permute(2, 0, 1)  # rearrange(x, "b h l -> l b h")
        # repeat(self.pe, "s b h -> (repeat s) b h", repeat=...)
        pe_ = self.pe.repeat(math.ceil(x.shape[0] / self.pe.shape[0]), 1, 1)
        x = x + pe_[: x.shape[0], :]
        return self.dropout(x).permute(1, 2, 0)  # rearrange(..., "l b h -> b h l")


class GBST(nn.Module):
    def __init__(self, embed_size=128, max_block_size=4, downsampling_factor=2,
                 score_calibration=True, vocab_size=259):
        super().__init__()
        self.max_block_size = max_block_size
        self.score_calibration = score_calibration
        self.byte_embedding = nn.Embedding(vocab_size, embed_size, padding_idx=0)
        self.block_position_embedding = PositionalEncoding(embed_size, max_len=self.max_block_size)
        self.avg_pools = nn.ModuleDict(
            {str(i): nn.AvgPool1d(i, ceil_mode=True) for i in range(1, self.max_block_size + 1)}
        )
        self.block_scorer = nn.Linear(embed_size, 1)
        self.down_sampler = nn.AvgPool1d(downsampling_factor, ceil_mode=True)

    def forward(self, input):
        byte_embeddings = self.byte_embedding(input)
        sequence_length = byte_embeddings.shape[1]
        Xs = []
        X_scores = []
        for block_size in range(1, self.max_block_size + 1):
            positioned_embeddings = byte_embeddings.permute(0, 2, 1)  # "b l h -> b h l"
            positioned_embeddings = self.block_position_embedding(positioned_embeddings)
            Xb = self.avg_pools[str(block_size)](positioned_embeddings)  # b h s
            Xb_scores = self.block_scorer(Xb.permute(0, 2, 1)).permute(0, 2, 1)  # b 1 s
            Xb_ = Xb.repeat_interleave(repeats=block_size, dim=2)
            Xb_scores_ = Xb_scores.repeat_interleave(repeats=block_size, dim=2)
            Xs.append(Xb_[:, :, :sequence_length])
            X_scores.append(Xb_scores_[:, :, :sequence_length])
        scores = torch.cat(X_scores, dim=1)  # b M l
        scores = torch.softmax(scores, dim=1).permute(0, 2, 1).unsqueeze(-1)  # "b M l -> b l M 1"
        if self.score_calibration:
            scores = torch.softmax(scores @ scores.transpose(-1, -2), dim=-1) @ scores
        Xs = torch.stack(Xs, dim=0).permute(1, 3, 2, 0)  # "M b h l -> b l h M"
        Xs = (Xs @ scores).squeeze(-1).permute(0, 2, 1)  # "b l h 1 -> b h l"
        Xs = self.down_sampler(Xs).permute(0, 2, 1)  # "b h s -> b s h"
        return Xs


def make_model():
    return GBST().eval()


def example_inputs():
    return (torch.randint(1, 259, (2, 33)),)


def other_inputs():
    return [(torch.randint(1, 259, (3, 50)),), (torch.randint(1, 259, (1, 14)),)]


def probe_inputs():
    return other_inputs()
