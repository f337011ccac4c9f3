"""yomitoku PARSeq text recognizer exported to ONNX with a dynamic width axis: the ViT `Encoder.forward` picks
`forward_features` when `x.shape[-2:] == tuple(self.patch_embed.img_size)` (the full 800px export canvas) and
`forward_features_dynamic` (position embedding cropped to the patch grid) otherwise, and the decoder's
`nn.MultiheadAttention` cross-attention reads the encoder memory; the code said "ONNX cannot do dynamic width here:
the decoder's MultiheadAttention bakes the encoder-memory length at export time", until the fix commit forced
`forward_features_dynamic` and replaced the MHA for export. (timm VisionTransformer reduced to the pieces the
encoder uses, one block; the NAR decode path kept, the AR loop and refinement trimmed; sizes shrunk.)

Source: https://github.com/kotaro-kinoshita/yomitoku/commit/e650af71368de24e2a2318b113653eedff3b71a2
"""
import math
from typing import Optional

import torch
from torch import Tensor
from torch import nn as nn
from torch.nn import functional as F
from torch.nn.modules import transformer

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"images": {0: "batch", 3: "width"}}
BLIND = "domains-59"


class PatchEmbed(nn.Module):
    """timm PatchEmbed (strict_img_size=True, flatten, no norm)."""

    def __init__(self, img_size, patch_size, in_chans, embed_dim):
        super().__init__()
        self.img_size = tuple(img_size)
        self.patch_size = tuple(patch_size)
        self.grid_size = (img_size[0] // patch_size[0], img_size[1] // patch_size[1])
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)
        self.norm = nn.Identity()

    def forward(self, x):
        B, C, H, W = x.shape
        torch._assert(H == self.img_size[0], f"Input height ({H}) doesn't match model ({self.img_size[0]}).")
        torch._assert(W == self.img_size[1], f"Input width ({W}) doesn't match model ({self.img_size[1]}).")
        x = self.proj(x)
        x = x.flatten(2).transpose(1, 2)  # NCHW -> NLC
        x = self.norm(x)
        return x


class VisionTransformer(nn.Module):
    """The parts of timm's VisionTransformer (class_token=False, global_pool='') the encoder uses."""

    def __init__(self, img_size, patch_size, in_chans, embed_dim, depth, num_heads, mlp_ratio):
        super().__init__()
        self.patch_embed = PatchEmbed(img_size, patch_size, in_chans, embed_dim)
        num_patches = self.patch_embed.grid_size[0] * self.patch_embed.grid_size[1]
        self.pos_embed = nn.Parameter(torch.randn(1, num_patches, embed_dim) * .02)
        self.pos_drop = nn.Dropout(0.0)
        self.patch_drop = nn.Identity()
        self.norm_pre = nn.Identity()
        self.blocks = nn.Sequential(*[
            nn.TransformerEncoderLayer(embed_dim, num_heads, int(embed_dim * mlp_ratio), dropout=0.0,
                                       activation="gelu", batch_first=True, norm_first=True)
            for _ in range(depth)])
        self.norm = nn.LayerNorm(embed_dim)

    def _pos_embed(self, x):
        x = x + self.pos_embed
        return self.pos_drop(x)

    def forward_features(self, x):
        x = self.patch_embed(x)
        x = self._pos_embed(x)
        x = self.patch_drop(x)
        x = self.norm_pre(x)
        x = self.blocks(x)
        x = self.norm(x)
        return x


class Encoder(VisionTransformer):
    def forward(self, x):
        if x.shape[-2:] == tuple(self.patch_embed.img_size):
            # Return all tokens
            return self.forward_features(x)
        return self.forward_features_dynamic(x)

    def forward_features_dynamic(self, x):
        x = self.patch_embed.proj(x)  # B, D, gh, gw
        gh, gw = x.shape[-2:]
        x = x.flatten(2).transpose(1, 2)  # B, N, D
        x = self.patch_embed.norm(x)

        full_gh, full_gw = self.patch_embed.grid_size
        pos_embed = self.pos_embed.reshape(1, full_gh, full_gw, -1)[:, :gh, :gw]
        x = x + pos_embed.reshape(1, gh * gw, -1)

        x = self.pos_drop(x)
        x = self.patch_drop(x)
        x = self.norm_pre(x)
        x = self.blocks(x)
        x = self.norm(x)
        return x


class DecoderLayer(nn.Module):
    """A Transformer decoder layer supporting two-stream attention (XLNet), pre-LN."""

    def __init__(self, embed_dim, num_heads, mlp_ratio=2048, dropout=0.1, activation="gelu", layer_norm_eps=1e-5):
        super().__init__()
        dim_feedforward = embed_dim * mlp_ratio
        self.self_attn = nn.MultiheadAttention(embed_dim, num_heads, dropout=dropout, batch_first=True)
        self.cross_attn = nn.MultiheadAttention(embed_dim, num_heads, dropout=dropout, batch_first=True)
        self.linear1 = nn.Linear(embed_dim, dim_feedforward)
        self.dropout = nn.Dropout(dropout)
        self.linear2 = nn.Linear(dim_feedforward, embed_dim)
        self.norm1 = nn.LayerNorm(embed_dim, eps=layer_norm_eps)
        self.norm2 = nn.LayerNorm(embed_dim, eps=layer_norm_eps)
        self.norm_q = nn.LayerNorm(embed_dim, eps=layer_norm_eps)
        self.norm_c = nn.LayerNorm(embed_dim, eps=layer_norm_eps)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)
        self.dropout3 = nn.Dropout(dropout)
        self.activation = transformer._get_activation_fn(activation)

    def forward_stream(self, tgt: Tensor, tgt_norm: Tensor, tgt_kv: Tensor, memory: Tensor,
                       tgt_mask: Optional[Tensor], tgt_key_padding_mask: Optional[Tensor]):
        tgt2, sa_weights = self.self_attn(tgt_norm, tgt_kv, tgt_kv, attn_mask=tgt_mask,
                                          key_padding_mask=tgt_key_padding_mask)
        tgt = tgt + self.dropout1(tgt2)

        tgt2, ca_weights = self.cross_attn(self.norm1(tgt), memory, memory)
        tgt = tgt + self.dropout2(tgt2)

        tgt2 = self.linear2(self.dropout(self.activation(self.linear1(self.norm2(tgt)))))
        tgt = tgt + self.dropout3(tgt2)
        return tgt, sa_weights, ca_weights

    def forward(self, query, content, memory, query_mask: Optional[Tensor] = None,
                content_mask: Optional[Tensor] = None, content_key_padding_mask: Optional[Tensor] = None,
                update_content: bool = True):
        query_norm = self.norm_q(query)
        content_norm = self.norm_c(content)
        query = self.forward_stream(query, query_norm, content_norm, memory, query_mask,
                                    content_key_padding_mask)[0]
        if update_content:
            content = self.forward_stream(content, content_norm, content_norm, memory, content_mask,
                                          content_key_padding_mask)[0]
        return query, content


class Decoder(nn.Module):
    def __init__(self, norm, embed_dim, num_heads, mlp_ratio, depth):
        super().__init__()
        decoder_layer = DecoderLayer(embed_dim=embed_dim, num_heads=num_heads, mlp_ratio=mlp_ratio)
        self.layers = transformer._get_clones(decoder_layer, depth)
        self.num_layers = depth
        self.norm = norm

    def forward(self, query, content, memory, query_mask: Optional[Tensor] = None,
                content_mask: Optional[Tensor] = None, content_key_padding_mask: Optional[Tensor] = None):
        for i, mod in enumerate(self.layers):
            last = i == len(self.layers) - 1
            query, content = mod(query, content, memory, query_mask, content_mask, content_key_padding_mask,
                                 update_content=not last)
        query = self.norm(query)
        return query


class TokenEmbedding(nn.Module):
    def __init__(self, charset_size: int, embed_dim: int):
        super().__init__()
        self.embedding = nn.Embedding(charset_size, embed_dim)
        self.embed_dim = embed_dim

    def forward(self, tokens: torch.Tensor):
        return math.sqrt(self.embed_dim) * self.embedding(tokens)


class Tokenizer:
    eos_id, bos_id, pad_id = 0, 21, 22


class PARSeq(nn.Module):
    def __init__(self, img_size=(32, 128), patch_size=(4, 8), embed_dim=48, num_heads=4, num_tokens=23,
                 max_label_length=8):
        super().__init__()
        self.max_label_length = max_label_length
        self.tokenizer = Tokenizer()
        self.encoder = Encoder(img_size, patch_size, 3, embed_dim, depth=1, num_heads=num_heads, mlp_ratio=4)
        self.decoder = Decoder(norm=nn.LayerNorm(embed_dim), embed_dim=embed_dim, num_heads=num_heads,
                               mlp_ratio=4, depth=1)
        self.head = nn.Linear(embed_dim, num_tokens - 2)
        self.text_embed = TokenEmbedding(num_tokens, embed_dim)
        self.pos_queries = nn.Parameter(torch.randn(1, max_label_length + 1, embed_dim) * .02)
        self.dropout = nn.Dropout()

    @property
    def _device(self) -> torch.device:
        return next(self.head.parameters(recurse=False)).device

    def encode(self, img: torch.Tensor):
        return self.encoder(img)

    def decode(self, tgt, memory, tgt_mask=None, tgt_padding_mask=None, tgt_query=None, tgt_query_mask=None):
        N, L = tgt.shape
        null_ctx = self.text_embed(tgt[:, :1])
        tgt_emb = self.pos_queries[:, : L - 1] + self.text_embed(tgt[:, 1:])
        tgt_emb = self.dropout(torch.cat([null_ctx, tgt_emb], dim=1))
        if tgt_query is None:
            tgt_query = self.pos_queries[:, :L].expand(N, -1, -1)
        tgt_query = self.dropout(tgt_query)
        return self.decoder(tgt_query, tgt_emb, memory, tgt_query_mask, tgt_mask, tgt_padding_mask)

    def forward(self, images: Tensor) -> Tensor:
        max_length = self.max_label_length
        bs = images.shape[0]
        num_steps = max_length + 1
        memory = self.encode(images)

        pos_queries = self.pos_queries[:, :num_steps].expand(bs, -1, -1)
        # No prior context, so input is just <bos>. We query all positions.
        tgt_in = torch.full((bs, 1), self.tokenizer.bos_id, dtype=torch.long, device=self._device)
        tgt_out = self.decode(tgt_in, memory, tgt_query=pos_queries)
        logits = self.head(tgt_out)
        return logits


def make_model():
    return PARSeq().eval()


def example_inputs():
    # the export canvas: height 32, full training width
    return (torch.randn(2, 3, 32, 128),)


def other_inputs():
    return [(torch.randn(3, 3, 32, 64),), (torch.randn(1, 3, 32, 96),)]


def probe_inputs():
    return other_inputs()
