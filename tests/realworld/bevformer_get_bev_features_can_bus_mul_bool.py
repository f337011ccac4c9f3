"""BEVFormer's PerceptionTransformer.get_bev_features adds the ego CAN-bus embedding to the BEV queries
with `bev_queries + can_bus * self.use_can_bus`, multiplying a tensor by a Python bool flag; the
TorchScript exporter dies with "0 INTERNAL ASSERT FAILED ... We don't have an op for aten::mul but it
isn't a special case.  Argument types: Tensor, bool".

Source: https://github.com/DerryHub/BEVFormer_tensorrt/issues/26
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"mlvl_feat": {0: "batch"}, "can_bus": {0: "batch"}}
BLIND = "operators-16"


class PerceptionTransformer(nn.Module):
    def __init__(self, embed_dims=32, bev_h=8, bev_w=8, num_cams=6, num_feature_levels=4,
                 use_shift=True, use_can_bus=True, can_bus_norm=True, use_cams_embeds=True):
        super().__init__()
        self.embed_dims = embed_dims
        self.bev_h, self.bev_w = bev_h, bev_w
        self.use_shift = use_shift
        self.use_can_bus = use_can_bus
        self.use_cams_embeds = use_cams_embeds
        self.bev_embedding = nn.Embedding(bev_h * bev_w, embed_dims)
        self.level_embeds = nn.Parameter(torch.randn(num_feature_levels, embed_dims))
        self.cams_embeds = nn.Parameter(torch.randn(num_cams, embed_dims))
        self.can_bus_mlp = nn.Sequential(
            nn.Linear(18, self.embed_dims // 2),
            nn.ReLU(inplace=True),
            nn.Linear(self.embed_dims // 2, self.embed_dims),
            nn.ReLU(inplace=True),
        )
        if can_bus_norm:
            self.can_bus_mlp.add_module('norm', nn.LayerNorm(self.embed_dims))

    def get_bev_features(self, mlvl_feats, bev_queries, can_bus):
        bs = mlvl_feats[0].size(0)
        bev_queries = bev_queries.unsqueeze(1).repeat(1, bs, 1)

        # add can bus signals
        can_bus = self.can_bus_mlp(can_bus)[None, :, :]
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

        # stand-in for the spatial cross attention: attend every BEV query to all camera tokens
        keys = feat_flatten.permute(2, 0, 1, 3).flatten(1, 2)             # bs, num_cam*H*W, C
        attn = torch.softmax(bev_queries.permute(1, 0, 2) @ keys.transpose(1, 2) / self.embed_dims ** 0.5, -1)
        bev_embed = bev_queries.permute(1, 0, 2) + attn @ keys
        return bev_embed

    def forward(self, mlvl_feat, can_bus):
        bev_queries = self.bev_embedding.weight.to(mlvl_feat.dtype)
        return self.get_bev_features([mlvl_feat], bev_queries, can_bus)


def make_model():
    return PerceptionTransformer(num_feature_levels=1).eval()


def example_inputs():
    return (torch.randn(1, 6, 32, 6, 10), torch.randn(1, 18))


def other_inputs():
    return [(torch.randn(2, 6, 32, 6, 10), torch.randn(2, 18)),
            (torch.randn(3, 6, 32, 6, 10), torch.randn(3, 18))]


def probe_inputs():
    return other_inputs()
