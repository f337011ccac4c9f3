"""fair-esm ESM-1b (`ProteinBertModel`) exported for embedding extraction: `forward(tokens, repr_layers=[])`
takes the layers to return as a plain Python list and returns a dict whose "representations" entry is itself a
dict keyed by int layer index. The esm-2-onnx README says passing `repr_layers` in the `torch.onnx.export()`
call raises (a JIT-compatible `torch.tensor([])` is needed), and its convert.py wraps the model to take a tensor,
call `.tolist()` and pull `results["representations"][33]` out of the nested dict.

Source: https://github.com/ashrafgt/esm-2-onnx
"""
import math

import torch
from torch import nn
import torch.nn.functional as F

CLASS = "outputs"
FAMILY = "scalars"
DYNAMIC = {"tokens": {0: "batch", 1: "length"}}
BLIND = "domains-73"


class LearnedPositionalEmbedding(nn.Embedding):
    def __init__(self, num_embeddings, embedding_dim, padding_idx):
        num_embeddings_ = num_embeddings + padding_idx + 1
        super().__init__(num_embeddings_, embedding_dim, padding_idx)
        self.max_positions = num_embeddings

    def forward(self, input):
        mask = input.ne(self.padding_idx).int()
        positions = (torch.cumsum(mask, dim=1).type_as(mask) * mask).long() + self.padding_idx
        return F.embedding(positions, self.weight, self.padding_idx)


class TransformerLayer(nn.Module):
    def __init__(self, embed_dim, ffn_embed_dim, attention_heads):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(embed_dim, attention_heads)
        self.self_attn_layer_norm = nn.LayerNorm(embed_dim)
        self.fc1 = nn.Linear(embed_dim, ffn_embed_dim)
        self.fc2 = nn.Linear(ffn_embed_dim, embed_dim)
        self.final_layer_norm = nn.LayerNorm(embed_dim)

    def forward(self, x, self_attn_padding_mask=None):
        residual = x
        x = self.self_attn_layer_norm(x)
        x, attn = self.self_attn(x, x, x, key_padding_mask=self_attn_padding_mask)
        x = residual + x
        residual = x
        x = self.final_layer_norm(x)
        x = self.fc2(F.gelu(self.fc1(x)))
        return residual + x, attn


class ProteinBertModel(nn.Module):
    def __init__(self, num_layers=3, embed_dim=32, ffn_embed_dim=64, attention_heads=4, alphabet_size=33, padding_idx=1):
        super().__init__()
        self.num_layers = num_layers
        self.padding_idx = padding_idx
        self.embed_scale = 1
        self.embed_tokens = nn.Embedding(alphabet_size, embed_dim, padding_idx=padding_idx)
        self.embed_positions = LearnedPositionalEmbedding(1024, embed_dim, padding_idx)
        self.emb_layer_norm_before = nn.LayerNorm(embed_dim)
        self.layers = nn.ModuleList(
            [TransformerLayer(embed_dim, ffn_embed_dim, attention_heads) for _ in range(num_layers)]
        )
        self.emb_layer_norm_after = nn.LayerNorm(embed_dim)
        self.lm_head = nn.Linear(embed_dim, alphabet_size)

    def forward(self, tokens, repr_layers=[]):
        assert tokens.ndim == 2
        padding_mask = tokens.eq(self.padding_idx)  # B, T

        x = self.embed_scale * self.embed_tokens(tokens)
        x = x + self.embed_positions(tokens)
        x = self.emb_layer_norm_before(x)
        x = x * (1 - padding_mask.unsqueeze(-1).type_as(x))

        repr_layers = set(repr_layers)
        hidden_representations = {}
        if 0 in repr_layers:
            hidden_representations[0] = x

        # (B, T, E) => (T, B, E)
        x = x.transpose(0, 1)
        for layer_idx, layer in enumerate(self.layers):
            x, attn = layer(x, self_attn_padding_mask=padding_mask)
            if (layer_idx + 1) in repr_layers:
                hidden_representations[layer_idx + 1] = x.transpose(0, 1)

        x = self.emb_layer_norm_after(x)
        x = x.transpose(0, 1)  # (T, B, E) => (B, T, E)

        # last hidden representation should have layer norm applied
        if (layer_idx + 1) in repr_layers:
            hidden_representations[layer_idx + 1] = x
        x = self.lm_head(x)

        result = {"logits": x, "representations": hidden_representations}
        return result


def make_model():
    return ProteinBertModel()


def _tokens(b, t):
    tokens = torch.randint(4, 24, (b, t))
    tokens[:, 0] = 0  # <cls>
    return tokens


def example_inputs():
    return (_tokens(2, 12), [3])


def other_inputs():
    return [(_tokens(3, 20), [3]), (_tokens(1, 7), [3])]


def probe_inputs():
    return other_inputs()
