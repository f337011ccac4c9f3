"""fairseq `TransformerEncoderBase.forward_scriptable` as it was before "Make representation computation
branchless" (fairseq PR #4818): `has_pads = src_tokens.device.type == "xla" or encoder_padding_mask.any()`
then `if has_pads:` zeroes padded positions and passes the padding mask to the layers; the PR says the
data-dependent branch breaks the correctness of a traced/exported program.

Source: https://github.com/facebookresearch/fairseq/pull/4818
"""
import math
from typing import Optional

import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"src_tokens": {0: "batch", 1: "src_len"}}
BLIND = "domains-37"

PAD = 1


def make_positions(tensor, padding_idx: int, onnx_trace: bool = False):
    mask = tensor.ne(padding_idx).int()
    return (torch.cumsum(mask, dim=1).type_as(mask) * mask).long() + padding_idx


class LearnedPositionalEmbedding(nn.Embedding):
    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int):
        super().__init__(num_embeddings, embedding_dim, padding_idx)

    def forward(self, input):
        positions = make_positions(input, self.padding_idx)
        return super().forward(positions)


class MultiheadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.scaling = self.head_dim ** -0.5
        self.k_proj = nn.Linear(embed_dim, embed_dim)
        self.v_proj = nn.Linear(embed_dim, embed_dim)
        self.q_proj = nn.Linear(embed_dim, embed_dim)
        self.out_proj = nn.Linear(embed_dim, embed_dim)

    def forward(self, query, key, value, key_padding_mask: Optional[torch.Tensor] = None, need_weights: bool = True):
        tgt_len, bsz, embed_dim = query.size()
        q = self.q_proj(query) * self.scaling
        k = self.k_proj(key)
        v = self.v_proj(value)
        q = q.contiguous().view(tgt_len, bsz * self.num_heads, self.head_dim).transpose(0, 1)
        k = k.contiguous().view(-1, bsz * self.num_heads, self.head_dim).transpose(0, 1)
        v = v.contiguous().view(-1, bsz * self.num_heads, self.head_dim).transpose(0, 1)
        src_len = k.size(1)
        attn_weights = torch.bmm(q, k.transpose(1, 2))
        if key_padding_mask is not None:
            attn_weights = attn_weights.view(bsz, self.num_heads, tgt_len, src_len)
            attn_weights = attn_weights.masked_fill(
                key_padding_mask.unsqueeze(1).unsqueeze(2).to(torch.bool), float("-inf")
            )
            attn_weights = attn_weights.view(bsz * self.num_heads, tgt_len, src_len)
        attn_probs = torch.softmax(attn_weights, dim=-1)
        attn = torch.bmm(attn_probs, v)
        attn = attn.transpose(0, 1).contiguous().view(tgt_len, bsz, embed_dim)
        return self.out_proj(attn), None


class TransformerEncoderLayer(nn.Module):
    def __init__(self, embed_dim, heads, ffn_dim):
        super().__init__()
        self.self_attn = MultiheadAttention(embed_dim, heads)
        self.self_attn_layer_norm = nn.LayerNorm(embed_dim)
        self.fc1 = nn.Linear(embed_dim, ffn_dim)
        self.fc2 = nn.Linear(ffn_dim, embed_dim)
        self.final_layer_norm = nn.LayerNorm(embed_dim)

    def forward(self, x, encoder_padding_mask: Optional[torch.Tensor]):
        residual = x
        x, _ = self.self_attn(query=x, key=x, value=x, key_padding_mask=encoder_padding_mask, need_weights=False)
        x = self.self_attn_layer_norm(residual + x)
        residual = x
        x = self.fc2(torch.relu(self.fc1(x)))
        x = self.final_layer_norm(residual + x)
        return x


class TransformerEncoderBase(nn.Module):
    def __init__(self, vocab=100, embed_dim=32, heads=4, layers=2, max_positions=128):
        super().__init__()
        self.padding_idx = PAD
        self.embed_tokens = nn.Embedding(vocab, embed_dim, padding_idx=PAD)
        self.embed_scale = math.sqrt(embed_dim)
        self.embed_positions = LearnedPositionalEmbedding(max_positions + PAD + 1, embed_dim, PAD)
        self.layernorm_embedding = nn.LayerNorm(embed_dim)
        self.dropout_module = nn.Dropout(0.1)
        self.layers = nn.ModuleList([TransformerEncoderLayer(embed_dim, heads, 2 * embed_dim) for _ in range(layers)])
        self.layer_norm = None

    def forward_embedding(self, src_tokens, token_embedding: Optional[torch.Tensor] = None):
        # embed tokens and positions
        if token_embedding is None:
            token_embedding = self.embed_tokens(src_tokens)
        x = embed = self.embed_scale * token_embedding
        if self.embed_positions is not None:
            x = embed + self.embed_positions(src_tokens)
        if self.layernorm_embedding is not None:
            x = self.layernorm_embedding(x)
        x = self.dropout_module(x)
        return x, embed

    def forward(self, src_tokens, src_lengths: Optional[torch.Tensor] = None):
        # compute padding mask
        encoder_padding_mask = src_tokens.eq(self.padding_idx)
        has_pads = src_tokens.device.type == "xla" or encoder_padding_mask.any()

        x, encoder_embedding = self.forward_embedding(src_tokens)

        # account for padding while computing the representation
        if has_pads:
            x = x * (1 - encoder_padding_mask.unsqueeze(-1).type_as(x))

        # B x T x C -> T x B x C
        x = x.transpose(0, 1)

        # encoder layers
        for layer in self.layers:
            x = layer(x, encoder_padding_mask=encoder_padding_mask if has_pads else None)

        if self.layer_norm is not None:
            x = self.layer_norm(x)

        return {
            "encoder_out": [x],  # T x B x C
            "encoder_padding_mask": [encoder_padding_mask],  # B x T
            "encoder_embedding": [encoder_embedding],  # B x T x C
        }


class SentenceEncoder(nn.Module):
    """Translation encoder served on its own: tokens in, encoder states (T x B x C) out."""

    def __init__(self):
        super().__init__()
        self.encoder = TransformerEncoderBase()

    def forward(self, src_tokens):
        out = self.encoder(src_tokens)
        return out["encoder_out"][0]


def _tokens(lengths, max_len):
    toks = torch.randint(4, 100, (len(lengths), max_len))
    for i, n in enumerate(lengths):
        toks[i, n:] = PAD
    return toks


def make_model():
    return SentenceEncoder().eval()


def example_inputs():
    # export dummy: a full batch without padding
    return (torch.randint(4, 100, (2, 12)),)


def other_inputs():
    return [(_tokens([16, 9, 5], 16),), (_tokens([7], 7),), (_tokens([10, 4], 10),)]


def probe_inputs():
    return other_inputs()
