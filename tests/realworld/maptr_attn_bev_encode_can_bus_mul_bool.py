"""MapTR's MapTRPerceptionTransformer.attn_bev_encode (BEVFormer-style BEV encoder for online HD-map
construction) slices the CAN-bus vector, embeds it and adds `can_bus * self.use_can_bus` (tensor times a
Python bool) to the BEV queries; exporting MapTR with torch.onnx.export fails with "We don't have an op
for aten::mul but it isn't a special case".

Source: https://github.com/hustvl/MapTR/issues/136
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"img_feats": {0: "batch"}, "can_bus": {0: "batch"}}
BLIND = "operators-16"


class MapTRPerceptionTransformer(nn.Module):
    def __init__(self, num_feature_levels=1, num_cams=6, embed_dims=32, bev_h=10, bev_w=5,
                 use_shift=True, use_can_bus=True, len_can_bus=18, can_bus_norm=True,
                 use_cams_embeds=True):
        super(MapTRPerceptionTransformer, self).__init__()
        self.num_feature_levels = num_feature_levels
        self.num_cams = num_cams
        self.embed_dims = embed_dims
        self.bev_h, self.bev_w = bev_h, bev_w
        self.use_shift = use_shift
        self.use_can_bus = use_can_bus
        self.len_can_bus = len_can_bus
        self.can_bus_norm = can_bus_norm
        self.use_cams_embeds = use_cams_embeds
        self.init_layers()

    def init_layers(self):
        self.bev_embedding = nn.Embedding(self.bev_h * self.bev_w, self.embed_dims)
        self.level_embeds = nn.Parameter(torch.randn(self.num_feature_levels, self.embed_dims))
        self.cams_embeds = nn.Parameter(torch.randn(self.num_cams, self.embed_dims))
        self.can_bus_mlp = nn.Sequential(
            nn.Linear(self.len_can_bus, self.embed_dims // 2),
            nn.ReLU(inplace=True),
            nn.Linear(self.embed_dims // 2, self.embed_dims),
            nn.ReLU(inplace=True),
        )
        if self.can_bus_norm:
            self.can_bus_mlp.add_module('norm', nn.LayerNorm(self.embed_dims))
        self.value_proj = nn.Linear(self.embed_dims, self.embed_dims)

    def attn_bev_encode(self, mlvl_feats, bev_queries, can_bus):
        bs = mlvl_feats[0].size(0)
        bev_queries = bev_queries.unsqueeze(1).repeat(1, bs, 1)

        # add can bus signals
        can_bus = self.can_bus_mlp(can_bus[:, :self.len_can_bus])[None, :, :]
        bev_queries = bev_queries + can_bus * self.use_can_bus

        feat_flatten = []
        for lvl, feat in enumerate(mlvl_feats):
            bs, num_cam, c, h, w = feat.shape
            feat = feat.flatten(3).permute(1, 0, 3, 2)
            if self.use_cams_embeds:
                feat = feat + self.cams_embeds[:, None, None, :].to(feat.dtype)
            feat = feat + self.level_embeds[None, None, lvl:lvl + 1, :].to(feat.dtype)
            feat_flatten.append(feat)
        feat_flatten = torch.cat(feat_flatten, 2)
        feat_flatten = feat_flatten.permute(0, 2, 1, 3)  # (num_cam, H*W, bs, embed_dims)

        # stand-in for the BEVFormer encoder: every BEV query attends to all camera tokens
        value = self.value_proj(feat_flatten.permute(2, 0, 1, 3).flatten(1, 2))  # bs, num_cam*H*W, C
        query = bev_queries.permute(1, 0, 2)
        attn = (query @ value.transpose(1, 2) / self.embed_dims ** 0.5).softmax(-1)
        bev_embed = query + attn @ value
        return bev_embed

    def forward(self, img_feats, can_bus):
        bev_queries = self.bev_embedding.weight.to(img_feats.dtype)
        return self.attn_bev_encode([img_feats], bev_queries, can_bus)


def make_model():
    return MapTRPerceptionTransformer().eval()


def example_inputs():
    return (torch.randn(1, 6, 32, 4, 8), torch.randn(1, 18))


def other_inputs():
    return [(torch.randn(2, 6, 32, 4, 8), torch.randn(2, 18)),
            (torch.randn(3, 6, 32, 4, 8), torch.randn(3, 18))]


def probe_inputs():
    return other_inputs()
