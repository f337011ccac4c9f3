"""UniAD's BEVFormer PerceptionTransformer.get_bev_features computes the ego-motion BEV shift from each
sample's CAN bus with NumPy (`np.array([each["can_bus"][0] for each in img_metas])`, `np.sqrt`,
`np.arctan2`, `np.cos`, then `bev_queries.new_tensor(shift_np)`) and feeds `np.array` of the CAN bus to
the MLP; tracing fails with "'ndarray' object has no attribute 'pow'", and tt-forge-models rewrites the
block with torch ops on a stacked can_bus tensor.

Source: https://github.com/tenstorrent/tt-forge-models/pull/387
"""
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {"mlvl_feat": {3: "height", 4: "width"}}
BLIND = "domains-55"


class PerceptionTransformer(nn.Module):
    def __init__(self, num_feature_levels=1, num_cams=6, embed_dims=32, use_shift=True,
                 can_bus_norm=True, use_cams_embeds=True):
        super(PerceptionTransformer, self).__init__()
        self.embed_dims = embed_dims
        self.num_feature_levels = num_feature_levels
        self.num_cams = num_cams
        self.use_shift = use_shift
        self.can_bus_norm = can_bus_norm
        self.use_cams_embeds = use_cams_embeds
        self.level_embeds = nn.Parameter(torch.randn(self.num_feature_levels, self.embed_dims))
        self.cams_embeds = nn.Parameter(torch.randn(self.num_cams, self.embed_dims))
        self.can_bus_mlp = nn.Sequential(
            nn.Linear(18, self.embed_dims // 2),
            nn.ReLU(inplace=True),
            nn.Linear(self.embed_dims // 2, self.embed_dims),
            nn.ReLU(inplace=True),
        )
        if self.can_bus_norm:
            self.can_bus_mlp.add_module("norm", nn.LayerNorm(self.embed_dims))

    def encoder(self, bev_query, feat_flatten, bev_h, bev_w, bev_pos, shift):
        # stand-in for BEVFormerEncoder: sample the BEV map at the ego-shifted 2D reference points
        # (temporal self-attention), then attend to all camera tokens (spatial cross-attention)
        bs = bev_query.size(1)
        ref_y, ref_x = torch.meshgrid(
            torch.linspace(0.5, bev_h - 0.5, bev_h, dtype=bev_query.dtype),
            torch.linspace(0.5, bev_w - 0.5, bev_w, dtype=bev_query.dtype), indexing="ij")
        ref_2d = torch.stack((ref_x.reshape(-1) / bev_w, ref_y.reshape(-1) / bev_h), -1)
        shift_ref_2d = ref_2d[None] + shift[:, None, :]                      # bs, H*W, 2
        query = (bev_query + bev_pos).permute(1, 2, 0).reshape(bs, self.embed_dims, bev_h, bev_w)
        sampled = F.grid_sample(query, (shift_ref_2d * 2 - 1)[:, :, None, :], align_corners=False)
        bev = bev_query.permute(1, 0, 2) + sampled[..., 0].permute(0, 2, 1)
        keys = feat_flatten.permute(2, 0, 1, 3).flatten(1, 2)                 # bs, cams*h*w, C
        attn = torch.softmax(bev @ keys.transpose(1, 2) / self.embed_dims ** 0.5, -1)
        return bev + attn @ keys

    def get_bev_features(self, mlvl_feats, bev_queries, bev_h, bev_w, grid_length=[0.512, 0.512],
                         bev_pos=None, prev_bev=None, img_metas=None):
        """
        obtain bev features.
        """

        bs = mlvl_feats[0].size(0)
        bev_queries = bev_queries.unsqueeze(1).repeat(1, bs, 1)
        bev_pos = bev_pos.flatten(2).permute(2, 0, 1)
        delta_x = np.array([each["can_bus"][0] for each in img_metas])
        delta_y = np.array([each["can_bus"][1] for each in img_metas])
        ego_angle = np.array([each["can_bus"][-2] / np.pi * 180 for each in img_metas])
        grid_length_y = grid_length[0]
        grid_length_x = grid_length[1]
        translation_length = np.sqrt(delta_x**2 + delta_y**2)
        translation_angle = np.arctan2(delta_y, delta_x) / np.pi * 180
        bev_angle = ego_angle - translation_angle
        shift_y = (
            translation_length * np.cos(bev_angle / 180 * np.pi) / grid_length_y / bev_h
        )
        shift_x = (
            translation_length * np.sin(bev_angle / 180 * np.pi) / grid_length_x / bev_w
        )
        shift_y = shift_y * self.use_shift
        shift_x = shift_x * self.use_shift
        shift_np = np.array([shift_x, shift_y])
        shift = bev_queries.new_tensor(shift_np).permute(1, 0)

        can_bus_np = np.array([each["can_bus"] for each in img_metas])
        can_bus = bev_queries.new_tensor(can_bus_np)
        can_bus = self.can_bus_mlp(can_bus)[None, :, :]
        bev_queries = bev_queries + can_bus

        feat_flatten = []
        for lvl, feat in enumerate(mlvl_feats):
            bs, num_cam, c, h, w = feat.shape
            feat = feat.flatten(3).permute(1, 0, 3, 2)
            if self.use_cams_embeds:
                feat = feat + self.cams_embeds[:, None, None, :].to(feat.dtype)
            feat = feat + self.level_embeds[None, None, lvl : lvl + 1, :].to(feat.dtype)
            feat_flatten.append(feat)

        feat_flatten = torch.cat(feat_flatten, 2)
        feat_flatten = feat_flatten.permute(0, 2, 1, 3)

        bev_embed = self.encoder(bev_queries, feat_flatten, bev_h, bev_w, bev_pos, shift)
        return bev_embed


class BEVFormerHead(nn.Module):
    def __init__(self, bev_h=10, bev_w=10, embed_dims=32):
        super().__init__()
        self.bev_h, self.bev_w = bev_h, bev_w
        self.bev_embedding = nn.Embedding(bev_h * bev_w, embed_dims)
        self.positional_encoding = nn.Parameter(torch.randn(1, embed_dims, bev_h, bev_w))
        self.transformer = PerceptionTransformer(embed_dims=embed_dims)

    def forward(self, mlvl_feat, can_bus):
        img_metas = [dict(can_bus=can_bus[i]) for i in range(can_bus.size(0))]
        bev_queries = self.bev_embedding.weight.to(mlvl_feat.dtype)
        bev_pos = self.positional_encoding.expand(mlvl_feat.size(0), -1, -1, -1)
        return self.transformer.get_bev_features(
            [mlvl_feat], bev_queries, self.bev_h, self.bev_w, grid_length=(0.512, 0.512),
            bev_pos=bev_pos, img_metas=img_metas)


def make_model():
    return BEVFormerHead().eval()


def example_inputs():
    return (torch.randn(1, 6, 32, 6, 10), torch.randn(1, 18))


def other_inputs():
    return [(torch.randn(1, 6, 32, 8, 12), torch.randn(1, 18)),
            (torch.randn(1, 6, 32, 5, 7), torch.randn(1, 18))]


def probe_inputs():
    return other_inputs()
