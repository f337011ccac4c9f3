"""PARSeq scene-text recognizer exported with `parseq.to_onnx(...)`: the ONNX model and the torch model give
different texts. Its autoregressive decode loop greedily fills `tgt_in` and leaves the loop early with
`if testing and (tgt_in == self.eos_id).any(dim=-1).all(): break`, a Python exit on tensor values that the
export freezes (or cannot follow). (ViT encoder and the two-stream decoder reduced to small layers; tokenizer
ids inlined.)

Source: https://github.com/baudm/parseq/issues/108
"""
from typing import Optional

import torch
import torch.nn as nn
from torch import Tensor

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"images": {0: "batch"}}
BLIND = "domains-46"


class TokenEmbedding(nn.Module):
    def __init__(self, charset_size: int, embed_dim: int):
        super().__init__()
        self.embedding = nn.Embedding(charset_size, embed_dim)
        self.embed_dim = embed_dim

    def forward(self, tokens: torch.Tensor):
        return (self.embed_dim ** 0.5) * self.embedding(tokens)


class Decoder(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(embed_dim, num_heads, batch_first=True)
        self.cross_attn = nn.MultiheadAttention(embed_dim, num_heads, batch_first=True)
        self.norm = nn.LayerNorm(embed_dim)

    def forward(self, query, content, memory, query_mask: Optional[Tensor] = None):
        query = query + self.self_attn(query, content, content, attn_mask=query_mask)[0]
        query = query + self.cross_attn(query, memory, memory)[0]
        return self.norm(query)


class PARSeq(nn.Module):
    def __init__(self, num_tokens=40, max_label_length=8, embed_dim=32, patch_size=(4, 8)):
        super().__init__()
        self.eos_id, self.bos_id, self.pad_id = 0, num_tokens - 2, num_tokens - 1
        self.max_label_length = max_label_length
        self.decode_ar = True
        self.encoder = nn.Conv2d(3, embed_dim, kernel_size=patch_size, stride=patch_size)
        self.decoder = Decoder(embed_dim, 2)
        # We don't predict <bos> nor <pad>
        self.head = nn.Linear(embed_dim, num_tokens - 2)
        self.text_embed = TokenEmbedding(num_tokens, embed_dim)
        # +1 for <eos>
        self.pos_queries = nn.Parameter(torch.randn(1, max_label_length + 1, embed_dim) * .02)
        self.dropout = nn.Dropout(p=0.1)

    @property
    def _device(self):
        return self.pos_queries.device

    def encode(self, img: torch.Tensor):
        return self.encoder(img).flatten(2).transpose(1, 2)

    def decode(self, tgt: torch.Tensor, memory: torch.Tensor, tgt_mask: Optional[Tensor] = None,
               tgt_query: Optional[Tensor] = None, tgt_query_mask: Optional[Tensor] = None):
        N, L = tgt.shape
        # <bos> stands for the null context. We only supply position information for characters after <bos>.
        null_ctx = self.text_embed(tgt[:, :1])
        tgt_emb = self.pos_queries[:, :L - 1] + self.text_embed(tgt[:, 1:])
        tgt_emb = self.dropout(torch.cat([null_ctx, tgt_emb], dim=1))
        if tgt_query is None:
            tgt_query = self.pos_queries[:, :L].expand(N, -1, -1)
        tgt_query = self.dropout(tgt_query)
        return self.decoder(tgt_query, tgt_emb, memory, tgt_query_mask)

    def forward(self, images: Tensor, max_length: Optional[int] = None) -> Tensor:
        testing = max_length is None
        max_length = self.max_label_length if max_length is None else min(max_length, self.max_label_length)
        bs = images.shape[0]
        # +1 for <eos> at end of sequence.
        num_steps = max_length + 1
        memory = self.encode(images)

        # Query positions up to `num_steps`
        pos_queries = self.pos_queries[:, :num_steps].expand(bs, -1, -1)

        # Special case for the forward permutation. Faster than using `generate_attn_masks()`
        tgt_mask = query_mask = torch.triu(torch.full((num_steps, num_steps), float('-inf'), device=self._device), 1)

        tgt_in = torch.full((bs, num_steps), self.pad_id, dtype=torch.long, device=self._device)
        tgt_in[:, 0] = self.bos_id

        logits = []
        for i in range(num_steps):
            j = i + 1  # next token index
            tgt_out = self.decode(tgt_in[:, :j], memory, tgt_mask[:j, :j], tgt_query=pos_queries[:, i:j],
                                  tgt_query_mask=query_mask[i:j, :j])
            # the next token probability is in the output's ith token position
            p_i = self.head(tgt_out)
            logits.append(p_i)
            if j < num_steps:
                # greedy decode. add the next token index to the target input
                tgt_in[:, j] = p_i.squeeze().argmax(-1)
                # Efficient batch decoding: If all output words have at least one EOS token, end decoding.
                if testing and (tgt_in == self.eos_id).any(dim=-1).all():
                    break

        logits = torch.cat(logits, dim=1)
        return logits


def make_model():
    return PARSeq().eval()


def example_inputs():
    return (torch.rand(2, 3, 32, 128) * 2 - 1,)


def other_inputs():
    return [(torch.rand(3, 3, 32, 128) * 2 - 1,), (torch.rand(1, 3, 32, 128) * 2 - 1,)]


def probe_inputs():
    return other_inputs()
