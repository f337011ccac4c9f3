"""PARSeq scene-text recognizer, iterative refinement branch: `tgt_padding_mask =
((tgt_in == self.eos_id).cumsum(-1) > 0)` runs CumSum on a bool tensor; the exported model is
rejected ("CumSum ... x typestr: T, has unsupported type: tensor(bool)"), so users set refine_iters=0.

Source: https://github.com/baudm/parseq/issues/66
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"images": {0: "batch"}}
BLIND = "domains-3"


class DecoderLayer(nn.Module):
    def __init__(self, d_model, nhead):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d_model, nhead, batch_first=True)
        self.cross_attn = nn.MultiheadAttention(d_model, nhead, batch_first=True)
        self.norm_q = nn.LayerNorm(d_model)
        self.norm_c = nn.LayerNorm(d_model)

    def forward(self, query, content, memory, query_mask=None, content_mask=None, content_key_padding_mask=None):
        query_norm, content_norm = self.norm_q(query), self.norm_c(content)
        query = query + self.self_attn(query_norm, content_norm, content_norm, attn_mask=query_mask,
                                       key_padding_mask=content_key_padding_mask)[0]
        query = query + self.cross_attn(query, memory, memory)[0]
        return query


class PARSeq(nn.Module):
    def __init__(self, num_tokens=12, max_label_length=6, embed_dim=32):
        super().__init__()
        self.eos_id, self.bos_id, self.pad_id = 0, num_tokens - 2, num_tokens - 1
        self.max_label_length = max_label_length
        self.decode_ar = False
        self.refine_iters = 1
        self.encoder = nn.Conv2d(3, embed_dim, kernel_size=(8, 8), stride=(8, 8))  # patch embed stand-in
        self.decoder = DecoderLayer(embed_dim, 4)
        self.head = nn.Linear(embed_dim, num_tokens - 2)
        self.text_embed = nn.Embedding(num_tokens, embed_dim)
        self.pos_queries = nn.Parameter(torch.randn(1, max_label_length + 1, embed_dim) * 0.02)
        self.dropout = nn.Dropout(0.1)

    def encode(self, img):
        return self.encoder(img).flatten(2).transpose(1, 2)

    def decode(self, tgt, memory, tgt_mask=None, tgt_padding_mask=None, tgt_query=None, tgt_query_mask=None):
        N, L = tgt.shape
        # <bos> stands for the null context. We only supply position information for characters after <bos>.
        null_ctx = self.text_embed(tgt[:, :1])
        tgt_emb = self.pos_queries[:, :L - 1] + self.text_embed(tgt[:, 1:])
        tgt_emb = self.dropout(torch.cat([null_ctx, tgt_emb], dim=1))
        if tgt_query is None:
            tgt_query = self.pos_queries[:, :L].expand(N, -1, -1)
        tgt_query = self.dropout(tgt_query)
        return self.decoder(tgt_query, tgt_emb, memory, tgt_query_mask, tgt_mask, tgt_padding_mask)

    def forward(self, images):
        max_length = self.max_label_length
        bs = images.shape[0]
        # +1 for <eos> at end of sequence.
        num_steps = max_length + 1
        memory = self.encode(images)

        # Query positions up to `num_steps`
        pos_queries = self.pos_queries[:, :num_steps].expand(bs, -1, -1)

        # Special case for the forward permutation. Faster than using `generate_attn_masks()`
        tgt_mask = query_mask = torch.triu(torch.full((num_steps, num_steps), float('-inf')), 1)

        # No prior context, so input is just <bos>. We query all positions.
        tgt_in = torch.full((bs, 1), self.bos_id, dtype=torch.long)
        tgt_out = self.decode(tgt_in, memory, tgt_query=pos_queries)
        logits = self.head(tgt_out)

        if self.refine_iters:
            # For iterative refinement, we always use a 'cloze' mask.
            # We can derive it from the AR forward mask by unmasking the token context to the right.
            query_mask[torch.triu(torch.ones(num_steps, num_steps, dtype=torch.bool), 2)] = 0
            bos = torch.full((bs, 1), self.bos_id, dtype=torch.long)
            for i in range(self.refine_iters):
                # Prior context is the previous output.
                tgt_in = torch.cat([bos, logits[:, :-1].argmax(-1)], dim=1)
                tgt_padding_mask = ((tgt_in == self.eos_id).cumsum(-1) > 0)  # mask tokens beyond the first EOS token.
                tgt_out = self.decode(tgt_in, memory, tgt_mask, tgt_padding_mask,
                                      tgt_query=pos_queries, tgt_query_mask=query_mask[:, :tgt_in.shape[1]])
                logits = self.head(tgt_out)

        return logits


def make_model():
    return PARSeq().eval()


def example_inputs():
    return (torch.randn(2, 3, 32, 128),)


def other_inputs():
    return [(torch.randn(3, 3, 32, 128),), (torch.randn(1, 3, 32, 128),)]


def probe_inputs():
    return other_inputs()
