"""Z-Image's diffusion transformer (`ZImageTransformer2DModel.forward`): per-sample lists are patchified with Python
sizes (`C, F, H, W = image.size()`, `image_padding_len = (-image_ori_len) % SEQ_MULTI_OF` with an
`if image_padding_len > 0` branch), token lengths are collected with `len(_)`, masks are filled in loops over the
batch and `unpatchify` reshapes with `(F // pF) * (H // pH) * (W // pW)`; the report says the ONNX export runs but
these token counts, padded lengths and reshape sizes are baked in, so another image size fails at runtime.

Source: https://github.com/huggingface/diffusers/issues/12843
"""
import math
from typing import List, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pad_sequence

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 3: "height", 4: "width"}, "t": {0: "batch"},
           "cap_feats": {0: "batch", 1: "cap_len"}}
BLIND = "domains-4"

ADALN_EMBED_DIM = 32
SEQ_MULTI_OF = 32


class TimestepEmbedder(nn.Module):
    def __init__(self, out_size, mid_size=None, frequency_embedding_size=32):
        super().__init__()
        if mid_size is None:
            mid_size = out_size
        self.mlp = nn.Sequential(nn.Linear(frequency_embedding_size, mid_size, bias=True), nn.SiLU(),
                                 nn.Linear(mid_size, out_size, bias=True))
        self.frequency_embedding_size = frequency_embedding_size

    @staticmethod
    def timestep_embedding(t, dim, max_period=10000):
        half = dim // 2
        freqs = torch.exp(
            -math.log(max_period) * torch.arange(start=0, end=half, dtype=torch.float32, device=t.device) / half
        )
        args = t[:, None].float() * freqs[None]
        embedding = torch.cat([torch.cos(args), torch.sin(args)], dim=-1)
        return embedding

    def forward(self, t):
        t_freq = self.timestep_embedding(t, self.frequency_embedding_size)
        return self.mlp(t_freq)


class ZImageTransformerBlock(nn.Module):
    def __init__(self, dim, n_heads, modulation=True):
        super().__init__()
        self.n_heads = n_heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)
        self.attention_norm1 = nn.LayerNorm(dim)
        self.ffn_norm1 = nn.LayerNorm(dim)
        self.feed_forward = nn.Sequential(nn.Linear(dim, 2 * dim), nn.SiLU(), nn.Linear(2 * dim, dim))
        self.modulation = modulation
        if modulation:
            self.adaLN_modulation = nn.Sequential(nn.Linear(min(dim, ADALN_EMBED_DIM), 4 * dim, bias=True))

    def attention(self, x, attn_mask):
        q, k, v = self.qkv(x).unflatten(-1, (3, self.n_heads, -1)).permute(2, 0, 3, 1, 4)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask[:, None, None, :])
        return self.out(out.transpose(1, 2).flatten(2))

    def forward(self, x, attn_mask, adaln_input=None):
        if self.modulation:
            scale_msa, gate_msa, scale_mlp, gate_mlp = self.adaLN_modulation(adaln_input).unsqueeze(1).chunk(4, dim=2)
            x = x + gate_msa.tanh() * self.attention(self.attention_norm1(x) * (1.0 + scale_msa), attn_mask)
            x = x + gate_mlp.tanh() * self.feed_forward(self.ffn_norm1(x) * (1.0 + scale_mlp))
        else:
            x = x + self.attention(self.attention_norm1(x), attn_mask)
            x = x + self.feed_forward(self.ffn_norm1(x))
        return x


class ZImageTransformer2DModel(nn.Module):
    def __init__(self, in_channels=4, dim=32, n_heads=2, cap_feat_dim=24, t_scale=1000.0):
        super().__init__()
        self.in_channels = in_channels
        self.out_channels = in_channels
        self.t_scale = t_scale
        self.x_embedder = nn.Linear(2 * 2 * in_channels, dim, bias=True)
        self.final_layer = nn.Linear(dim, 2 * 2 * in_channels, bias=True)
        self.noise_refiner = nn.ModuleList([ZImageTransformerBlock(dim, n_heads, modulation=True)])
        self.context_refiner = nn.ModuleList([ZImageTransformerBlock(dim, n_heads, modulation=False)])
        self.layers = nn.ModuleList([ZImageTransformerBlock(dim, n_heads)])
        self.t_embedder = TimestepEmbedder(min(dim, ADALN_EMBED_DIM), mid_size=64)
        self.cap_embedder = nn.Sequential(nn.LayerNorm(cap_feat_dim), nn.Linear(cap_feat_dim, dim, bias=True))
        self.x_pad_token = nn.Parameter(torch.randn((1, dim)))
        self.cap_pad_token = nn.Parameter(torch.randn((1, dim)))

    def unpatchify(self, x: List[torch.Tensor], size: List[Tuple], patch_size, f_patch_size) -> List[torch.Tensor]:
        pH = pW = patch_size
        pF = f_patch_size
        bsz = len(x)
        assert len(size) == bsz
        for i in range(bsz):
            F, H, W = size[i]
            ori_len = (F // pF) * (H // pH) * (W // pW)
            # "f h w pf ph pw c -> c (f pf) (h ph) (w pw)"
            x[i] = (
                x[i][:ori_len]
                .view(F // pF, H // pH, W // pW, pF, pH, pW, self.out_channels)
                .permute(6, 0, 3, 1, 4, 2, 5)
                .reshape(self.out_channels, F, H, W)
            )
        return x

    def patchify_and_embed(self, all_image, all_cap_feats, patch_size, f_patch_size):
        pH = pW = patch_size
        pF = f_patch_size
        device = all_image[0].device
        all_image_out, all_image_size, all_image_pad_mask = [], [], []
        all_cap_pad_mask, all_cap_feats_out = [], []

        for i, (image, cap_feat) in enumerate(zip(all_image, all_cap_feats)):
            ### Process Caption
            cap_ori_len = len(cap_feat)
            cap_padding_len = (-cap_ori_len) % SEQ_MULTI_OF
            all_cap_pad_mask.append(
                torch.cat(
                    [
                        torch.zeros((cap_ori_len,), dtype=torch.bool, device=device),
                        torch.ones((cap_padding_len,), dtype=torch.bool, device=device),
                    ],
                    dim=0,
                )
            )
            cap_padded_feat = torch.cat([cap_feat, cap_feat[-1:].repeat(cap_padding_len, 1)], dim=0)
            all_cap_feats_out.append(cap_padded_feat)

            ### Process Image
            C, F, H, W = image.size()
            all_image_size.append((F, H, W))
            F_tokens, H_tokens, W_tokens = F // pF, H // pH, W // pW

            image = image.view(C, F_tokens, pF, H_tokens, pH, W_tokens, pW)
            # "c f pf h ph w pw -> (f h w) (pf ph pw c)"
            image = image.permute(1, 3, 5, 2, 4, 6, 0).reshape(F_tokens * H_tokens * W_tokens, pF * pH * pW * C)

            image_ori_len = len(image)
            image_padding_len = (-image_ori_len) % SEQ_MULTI_OF
            all_image_pad_mask.append(
                torch.cat(
                    [
                        torch.zeros((image_ori_len,), dtype=torch.bool, device=device),
                        torch.ones((image_padding_len,), dtype=torch.bool, device=device),
                    ],
                    dim=0,
                ) if image_padding_len > 0 else torch.zeros((image_ori_len,), dtype=torch.bool, device=device)
            )
            image_padded_feat = torch.cat([image, image[-1:].repeat(image_padding_len, 1)], dim=0) if image_padding_len > 0 else image
            all_image_out.append(image_padded_feat)

        return all_image_out, all_cap_feats_out, all_image_size, all_image_pad_mask, all_cap_pad_mask

    def forward(self, x, t, cap_feats, patch_size=2, f_patch_size=1):
        x = list(x.unbind(0))
        cap_feats = list(cap_feats.unbind(0))
        bsz = len(x)
        device = x[0].device
        t = t * self.t_scale
        t = self.t_embedder(t)

        x, cap_feats, x_size, x_inner_pad_mask, cap_inner_pad_mask = self.patchify_and_embed(
            x, cap_feats, patch_size, f_patch_size)

        # x embed & refine
        x_item_seqlens = [len(_) for _ in x]
        assert all(_ % SEQ_MULTI_OF == 0 for _ in x_item_seqlens)
        x_max_item_seqlen = max(x_item_seqlens)

        x = torch.cat(x, dim=0)
        x = self.x_embedder(x)
        adaln_input = t.type_as(x)
        x[torch.cat(x_inner_pad_mask)] = self.x_pad_token
        x = list(x.split(x_item_seqlens, dim=0))
        x = pad_sequence(x, batch_first=True, padding_value=0.0)
        x_attn_mask = torch.zeros((bsz, x_max_item_seqlen), dtype=torch.bool, device=device)
        for i, seq_len in enumerate(x_item_seqlens):
            x_attn_mask[i, :seq_len] = 1
        for layer in self.noise_refiner:
            x = layer(x, x_attn_mask, adaln_input)

        # cap embed & refine
        cap_item_seqlens = [len(_) for _ in cap_feats]
        cap_max_item_seqlen = max(cap_item_seqlens)
        cap_feats = torch.cat(cap_feats, dim=0)
        cap_feats = self.cap_embedder(cap_feats)
        cap_feats[torch.cat(cap_inner_pad_mask)] = self.cap_pad_token
        cap_feats = list(cap_feats.split(cap_item_seqlens, dim=0))
        cap_feats = pad_sequence(cap_feats, batch_first=True, padding_value=0.0)
        cap_attn_mask = torch.zeros((bsz, cap_max_item_seqlen), dtype=torch.bool, device=device)
        for i, seq_len in enumerate(cap_item_seqlens):
            cap_attn_mask[i, :seq_len] = 1
        for layer in self.context_refiner:
            cap_feats = layer(cap_feats, cap_attn_mask)

        # unified
        unified = []
        for i in range(bsz):
            x_len = x_item_seqlens[i]
            cap_len = cap_item_seqlens[i]
            unified.append(torch.cat([x[i][:x_len], cap_feats[i][:cap_len]]))
        unified_item_seqlens = [a + b for a, b in zip(cap_item_seqlens, x_item_seqlens)]
        unified_max_item_seqlen = max(unified_item_seqlens)
        unified = pad_sequence(unified, batch_first=True, padding_value=0.0)
        unified_attn_mask = torch.zeros((bsz, unified_max_item_seqlen), dtype=torch.bool, device=device)
        for i, seq_len in enumerate(unified_item_seqlens):
            unified_attn_mask[i, :seq_len] = 1
        for layer in self.layers:
            unified = layer(unified, unified_attn_mask, adaln_input)

        unified = self.final_layer(unified)
        unified = list(unified.unbind(dim=0))
        x = self.unpatchify(unified, x_size, patch_size, f_patch_size)
        return torch.stack(x)


def make_model():
    return ZImageTransformer2DModel().eval()


def example_inputs():
    return (torch.randn(2, 4, 1, 8, 12), torch.rand(2), torch.randn(2, 10, 24))


def other_inputs():
    return [(torch.randn(3, 4, 1, 16, 16), torch.rand(3), torch.randn(3, 37, 24)),
            (torch.randn(1, 4, 1, 12, 10), torch.rand(1), torch.randn(1, 5, 24))]


def probe_inputs():
    return other_inputs()
