"""Docling TableFormer (table-structure recognition) tag decoder step with a growing cache: each
TMTransformerDecoderLayer attends from the last tag `tgt[-1:]` over all tags with nn.MultiheadAttention
and TMTransformerDecoder concatenates the layer cache. The reporter could not convert it to ONNX: the
self-attention reshape keeps the export-time shape while the cache (and tag sequence) changes length.

Source: https://github.com/docling-project/docling/issues/760
"""
import math
from typing import Optional

import torch
from torch import Tensor, nn

CLASS = "views"
FAMILY = "views"
DYNAMIC = {"decoded_tags": {0: "tags"}, "cache": {1: "cached_tags"}}
BLIND = "domains-72"


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=1024):
        super(PositionalEncoding, self).__init__()
        self.dropout = nn.Dropout(p=dropout)

        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(
            torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model)
        )
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0).transpose(0, 1)
        self.register_buffer("pe", pe)

    def forward(self, x):
        x = x + self.pe[: x.size(0), :]
        return self.dropout(x)


class TMTransformerDecoder(nn.TransformerDecoder):
    def forward(
        self,
        tgt: Tensor,
        memory: Optional[Tensor] = None,
        cache: Optional[Tensor] = None,
        memory_mask: Optional[Tensor] = None,
        tgt_key_padding_mask: Optional[Tensor] = None,
        memory_key_padding_mask: Optional[Tensor] = None,
    ) -> Tensor:
        output = tgt

        # cache
        tag_cache = []
        for i, mod in enumerate(self.layers):
            output = mod(output, memory)
            tag_cache.append(output)
            if cache is not None:
                output = torch.cat([cache[i], output], dim=0)

        if cache is not None:
            out_cache = torch.cat([cache, torch.stack(tag_cache, dim=0)], dim=1)
        else:
            out_cache = torch.stack(tag_cache, dim=0)

        return output, out_cache


class TMTransformerDecoderLayer(nn.TransformerDecoderLayer):
    def forward(
        self,
        tgt: Tensor,
        memory: Optional[Tensor] = None,
        memory_mask: Optional[Tensor] = None,
        tgt_key_padding_mask: Optional[Tensor] = None,
        memory_key_padding_mask: Optional[Tensor] = None,
    ) -> Tensor:
        # From PyTorch but modified to only use the last tag
        tgt_last_tok = tgt[-1:, :, :]

        tmp_tgt = self.self_attn(
            tgt_last_tok,
            tgt,
            tgt,
            attn_mask=None,  # None, because we only care about the last tag
            key_padding_mask=tgt_key_padding_mask,
        )[0]
        tgt_last_tok = tgt_last_tok + self.dropout1(tmp_tgt)
        tgt_last_tok = self.norm1(tgt_last_tok)

        if memory is not None:
            tmp_tgt = self.multihead_attn(
                tgt_last_tok,
                memory,
                memory,
                attn_mask=memory_mask,
                key_padding_mask=memory_key_padding_mask,
            )[0]
            tgt_last_tok = tgt_last_tok + self.dropout2(tmp_tgt)
            tgt_last_tok = self.norm2(tgt_last_tok)

        tmp_tgt = self.linear2(
            self.dropout(self.activation(self.linear1(tgt_last_tok)))
        )
        tgt_last_tok = tgt_last_tok + self.dropout3(tmp_tgt)
        tgt_last_tok = self.norm3(tgt_last_tok)
        return tgt_last_tok


class TableFormerTagDecoderStep(nn.Module):
    """One step of TableModel04_rs.predict's tag loop (embedding -> decoder with cache -> fc)."""

    def __init__(self, vocab_size=13, embed_dim=32, n_heads=4, decoder_layers=2, dim_ff=64):
        super().__init__()
        self._embedding = nn.Embedding(vocab_size, embed_dim)
        self._positional_encoding = PositionalEncoding(embed_dim)
        self._decoder = TMTransformerDecoder(
            TMTransformerDecoderLayer(d_model=embed_dim, nhead=n_heads, dim_feedforward=dim_ff),
            num_layers=decoder_layers,
        )
        self._fc = nn.Linear(embed_dim, vocab_size)

    def forward(self, decoded_tags, encoder_out, cache):
        decoded_embedding = self._embedding(decoded_tags)
        decoded_embedding = self._positional_encoding(decoded_embedding)
        decoded, cache = self._decoder(decoded_embedding, encoder_out, cache)
        logits = self._fc(decoded[-1, :, :])  # 1, vocab_size
        return logits, cache


def make_model():
    return TableFormerTagDecoderStep().eval()


def _step(n_tags):
    # tags so far (tags_len, 1), encoded image (7*7 positions, 1, 32), cache (layers, tags_len - 1, 1, 32)
    return (torch.randint(0, 13, (n_tags, 1)), torch.randn(49, 1, 32), torch.randn(2, n_tags - 1, 1, 32))


def example_inputs():
    return _step(5)


def other_inputs():
    return [_step(9), _step(3)]


def probe_inputs():
    return other_inputs()
