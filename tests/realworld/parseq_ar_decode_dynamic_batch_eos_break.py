"""PARSeq scene-text recognizer exported with a dynamic batch: the autoregressive decode loop greedily
writes `tgt_in[:, j] = p_i.squeeze().argmax(-1)` and leaves the loop with
`if testing and (tgt_in == tokenizer.eos_id).any(dim=-1).all(): break`; after export with a dynamic batch
the ONNX model no longer finds the <eos> on harder images (the number of decode steps is fixed at export).

Source: https://github.com/baudm/parseq/issues/155
"""
from typing import Optional

import torch
from torch import Tensor, nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"images": {0: "batch"}}
BLIND = "domains-17"


class Tokenizer:
    # strhub BaseTokenizer layout: [E] + charset + [B] + [P]
    def __init__(self, charset="0123456789"):
        self.eos_id = 0
        self.bos_id = len(charset) + 1
        self.pad_id = len(charset) + 2

    def __len__(self):
        return self.pad_id + 1


class DecoderLayer(nn.Module):
    """Pre-LN two-stream (XLNet) decoder layer, as in strhub.models.parseq.modules."""

    def __init__(self, d_model, nhead, dim_feedforward):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d_model, nhead, batch_first=True)
        self.cross_attn = nn.MultiheadAttention(d_model, nhead, batch_first=True)
        self.linear1 = nn.Linear(d_model, dim_feedforward)
        self.linear2 = nn.Linear(dim_feedforward, d_model)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.norm_q = nn.LayerNorm(d_model)
        self.norm_c = nn.LayerNorm(d_model)

    def forward_stream(self, tgt, tgt_norm, tgt_kv, memory, tgt_mask, tgt_key_padding_mask):
        tgt2, _ = self.self_attn(tgt_norm, tgt_kv, tgt_kv, attn_mask=tgt_mask, key_padding_mask=tgt_key_padding_mask)
        tgt = tgt + tgt2
        tgt2, _ = self.cross_attn(self.norm1(tgt), memory, memory)
        tgt = tgt + tgt2
        tgt = tgt + self.linear2(nn.functional.gelu(self.linear1(self.norm2(tgt))))
        return tgt

    def forward(self, query, content, memory, query_mask=None, content_mask=None, content_key_padding_mask=None):
        query_norm = self.norm_q(query)
        content_norm = self.norm_c(content)
        return self.forward_stream(query, query_norm, content_norm, memory, query_mask, content_key_padding_mask)


class PARSeq(nn.Module):
    def __init__(self, tokenizer, max_label_length=8, embed_dim=32, patch_size=(4, 8), img_size=(16, 64)):
        super().__init__()
        self.tokenizer = tokenizer
        self.max_label_length = max_label_length
        self.decode_ar = True
        self.refine_iters = 0
        # ViT encoder trimmed to its patch embedding + one block
        self.patch_embed = nn.Conv2d(3, embed_dim, kernel_size=patch_size, stride=patch_size)
        self.enc_block = nn.TransformerEncoderLayer(embed_dim, 2, embed_dim * 2, dropout=0.0, batch_first=True)
        self.enc_norm = nn.LayerNorm(embed_dim)
        self.decoder = DecoderLayer(embed_dim, 2, embed_dim * 2)
        self.dec_norm = nn.LayerNorm(embed_dim)
        # We don't predict <bos> nor <pad>
        self.head = nn.Linear(embed_dim, len(tokenizer) - 2)
        self.text_embed = nn.Embedding(len(tokenizer), embed_dim)
        # +1 for <eos>
        self.pos_queries = nn.Parameter(torch.randn(1, max_label_length + 1, embed_dim) * 0.5)

    @property
    def _device(self) -> torch.device:
        return next(self.head.parameters(recurse=False)).device

    def encode(self, img: torch.Tensor):
        x = self.patch_embed(img).flatten(2).transpose(1, 2)
        return self.enc_norm(self.enc_block(x))

    def decode(self, tgt, memory, tgt_mask=None, tgt_padding_mask=None, tgt_query=None, tgt_query_mask=None):
        N, L = tgt.shape
        # <bos> stands for the null context. We only supply position information for characters after <bos>.
        null_ctx = self.text_embed(tgt[:, :1])
        tgt_emb = self.pos_queries[:, : L - 1] + self.text_embed(tgt[:, 1:])
        tgt_emb = torch.cat([null_ctx, tgt_emb], dim=1)
        if tgt_query is None:
            tgt_query = self.pos_queries[:, :L].expand(N, -1, -1)
        out = self.decoder(tgt_query, tgt_emb, memory, tgt_query_mask, tgt_mask, tgt_padding_mask)
        return self.dec_norm(out)

    def forward(self, images: Tensor, max_length: Optional[int] = None) -> Tensor:
        tokenizer = self.tokenizer
        testing = max_length is None
        max_length = self.max_label_length if max_length is None else min(max_length, self.max_label_length)
        bs = images.shape[0]
        # +1 for <eos> at end of sequence.
        num_steps = max_length + 1
        memory = self.encode(images)

        # Query positions up to `num_steps`
        pos_queries = self.pos_queries[:, :num_steps].expand(bs, -1, -1)

        # Special case for the forward permutation. Faster than using `generate_attn_masks()`
        tgt_mask = query_mask = torch.triu(torch.ones((num_steps, num_steps), dtype=torch.bool, device=self._device), 1)

        if self.decode_ar:
            tgt_in = torch.full((bs, num_steps), tokenizer.pad_id, dtype=torch.long, device=self._device)
            tgt_in[:, 0] = tokenizer.bos_id

            logits = []
            for i in range(num_steps):
                j = i + 1  # next token index
                tgt_out = self.decode(
                    tgt_in[:, :j],
                    memory,
                    tgt_mask[:j, :j],
                    tgt_query=pos_queries[:, i:j],
                    tgt_query_mask=query_mask[i:j, :j],
                )
                # the next token probability is in the output's ith token position
                p_i = self.head(tgt_out)
                logits.append(p_i)
                if j < num_steps:
                    # greedy decode. add the next token index to the target input
                    tgt_in[:, j] = p_i.squeeze().argmax(-1)
                    # Efficient batch decoding: If all output words have at least one EOS token, end decoding.
                    if testing and (tgt_in == tokenizer.eos_id).any(dim=-1).all():
                        break

            logits = torch.cat(logits, dim=1)
        else:
            tgt_in = torch.full((bs, 1), tokenizer.bos_id, dtype=torch.long, device=self._device)
            tgt_out = self.decode(tgt_in, memory, tgt_query=pos_queries)
            logits = self.head(tgt_out)

        return logits


def make_model():
    return PARSeq(Tokenizer()).eval()


def example_inputs():
    return (torch.rand(1, 3, 16, 64),)


def other_inputs():
    return [(torch.rand(3, 3, 16, 64),), (torch.rand(2, 3, 16, 64) * 2 - 1,)]


def probe_inputs():
    return other_inputs()
