"""GroundingDINO (open-set, text-prompted detector) exported for X-AnyLabeling: the exported ONNX model only
runs at the image size used for export, inference at another resolution fails. The deformable encoder
collects each level's `(h, w)` from `src.shape` into a Python list, turns it into a tensor with
`torch.as_tensor(spatial_shapes, ...)`, then `get_reference_points` and the PyTorch multi-scale deformable
attention loop over that tensor (`torch.linspace(0.5, H_ - 0.5, H_)`, `.reshape(..., H_, W_)`).
Reduced to a 2-level conv backbone, the sine position embedding and one deformable-attention layer.

Source: https://github.com/CVHub520/X-AnyLabeling/issues/96
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"samples": {2: "height", 3: "width"}}
BLIND = "domains-17"


def multi_scale_deformable_attn_pytorch(value, value_spatial_shapes, sampling_locations, attention_weights):
    bs, _, num_heads, embed_dims = value.shape
    _, num_queries, num_heads, num_levels, num_points, _ = sampling_locations.shape
    value_list = value.split([H_ * W_ for H_, W_ in value_spatial_shapes], dim=1)
    sampling_grids = 2 * sampling_locations - 1
    sampling_value_list = []
    for level, (H_, W_) in enumerate(value_spatial_shapes):
        value_l_ = value_list[level].flatten(2).transpose(1, 2).reshape(bs * num_heads, embed_dims, H_, W_)
        sampling_grid_l_ = sampling_grids[:, :, :, level].transpose(1, 2).flatten(0, 1)
        sampling_value_l_ = F.grid_sample(
            value_l_, sampling_grid_l_, mode="bilinear", padding_mode="zeros", align_corners=False
        )
        sampling_value_list.append(sampling_value_l_)
    attention_weights = attention_weights.transpose(1, 2).reshape(bs * num_heads, 1, num_queries, num_levels * num_points)
    output = (
        (torch.stack(sampling_value_list, dim=-2).flatten(-2) * attention_weights)
        .sum(-1)
        .view(bs, num_heads * embed_dims, num_queries)
    )
    return output.transpose(1, 2).contiguous()


class MultiScaleDeformableAttention(nn.Module):
    def __init__(self, embed_dim=32, num_heads=4, num_levels=2, num_points=2):
        super().__init__()
        self.num_heads, self.num_levels, self.num_points = num_heads, num_levels, num_points
        self.sampling_offsets = nn.Linear(embed_dim, num_heads * num_levels * num_points * 2)
        self.attention_weights = nn.Linear(embed_dim, num_heads * num_levels * num_points)
        self.value_proj = nn.Linear(embed_dim, embed_dim)
        self.output_proj = nn.Linear(embed_dim, embed_dim)

    def forward(self, query, value, query_pos, key_padding_mask, reference_points, spatial_shapes):
        query = query + query_pos
        bs, num_query, _ = query.shape
        bs, num_value, _ = value.shape
        value = self.value_proj(value)
        value = value.masked_fill(key_padding_mask[..., None], float(0))
        value = value.view(bs, num_value, self.num_heads, -1)
        sampling_offsets = self.sampling_offsets(query).view(
            bs, num_query, self.num_heads, self.num_levels, self.num_points, 2
        )
        attention_weights = self.attention_weights(query).view(
            bs, num_query, self.num_heads, self.num_levels * self.num_points
        )
        attention_weights = attention_weights.softmax(-1).view(
            bs, num_query, self.num_heads, self.num_levels, self.num_points
        )
        offset_normalizer = torch.stack([spatial_shapes[..., 1], spatial_shapes[..., 0]], -1)
        sampling_locations = (
            reference_points[:, :, None, :, None, :]
            + sampling_offsets / offset_normalizer[None, None, None, :, None, :]
        )
        output = multi_scale_deformable_attn_pytorch(value, spatial_shapes, sampling_locations, attention_weights)
        return self.output_proj(output)


class PositionEmbeddingSineHW(nn.Module):
    def __init__(self, num_pos_feats=16, temperatureH=20, temperatureW=20):
        super().__init__()
        self.num_pos_feats, self.temperatureH, self.temperatureW = num_pos_feats, temperatureH, temperatureW
        self.scale = 2 * math.pi

    def forward(self, mask):
        not_mask = ~mask
        y_embed = not_mask.cumsum(1, dtype=torch.float32)
        x_embed = not_mask.cumsum(2, dtype=torch.float32)
        eps = 1e-6
        y_embed = y_embed / (y_embed[:, -1:, :] + eps) * self.scale
        x_embed = x_embed / (x_embed[:, :, -1:] + eps) * self.scale
        dim_tx = torch.arange(self.num_pos_feats, dtype=torch.float32, device=mask.device)
        dim_tx = self.temperatureW ** (2 * (torch.div(dim_tx, 2, rounding_mode="floor")) / self.num_pos_feats)
        pos_x = x_embed[:, :, :, None] / dim_tx
        dim_ty = torch.arange(self.num_pos_feats, dtype=torch.float32, device=mask.device)
        dim_ty = self.temperatureH ** (2 * (torch.div(dim_ty, 2, rounding_mode="floor")) / self.num_pos_feats)
        pos_y = y_embed[:, :, :, None] / dim_ty
        pos_x = torch.stack((pos_x[:, :, :, 0::2].sin(), pos_x[:, :, :, 1::2].cos()), dim=4).flatten(3)
        pos_y = torch.stack((pos_y[:, :, :, 0::2].sin(), pos_y[:, :, :, 1::2].cos()), dim=4).flatten(3)
        return torch.cat((pos_y, pos_x), dim=3).permute(0, 3, 1, 2)


class TinyGroundingDINOEncoder(nn.Module):
    def __init__(self, d_model=32, num_feature_levels=2):
        super().__init__()
        self.num_feature_levels = num_feature_levels
        self.stage1 = nn.Sequential(nn.Conv2d(3, 16, 3, 4, 1), nn.ReLU(), nn.Conv2d(16, 24, 3, 2, 1), nn.ReLU())
        self.stage2 = nn.Sequential(nn.Conv2d(24, 48, 3, 2, 1), nn.ReLU())
        self.input_proj = nn.ModuleList([nn.Conv2d(24, d_model, 1), nn.Conv2d(48, d_model, 1)])
        self.position_embedding = PositionEmbeddingSineHW(d_model // 2)
        self.level_embed = nn.Parameter(torch.randn(num_feature_levels, d_model))
        self.self_attn = MultiScaleDeformableAttention(d_model, num_levels=num_feature_levels)
        self.norm1 = nn.LayerNorm(d_model)

    def get_valid_ratio(self, mask):
        _, H, W = mask.shape
        valid_H = torch.sum(~mask[:, :, 0], 1)
        valid_W = torch.sum(~mask[:, 0, :], 1)
        valid_ratio_h = valid_H.float() / H
        valid_ratio_w = valid_W.float() / W
        valid_ratio = torch.stack([valid_ratio_w, valid_ratio_h], -1)
        return valid_ratio

    @staticmethod
    def get_reference_points(spatial_shapes, valid_ratios, device):
        reference_points_list = []
        for lvl, (H_, W_) in enumerate(spatial_shapes):
            ref_y, ref_x = torch.meshgrid(
                torch.linspace(0.5, H_ - 0.5, H_, dtype=torch.float32, device=device),
                torch.linspace(0.5, W_ - 0.5, W_, dtype=torch.float32, device=device),
                indexing="ij",
            )
            ref_y = ref_y.reshape(-1)[None] / (valid_ratios[:, None, lvl, 1] * H_)
            ref_x = ref_x.reshape(-1)[None] / (valid_ratios[:, None, lvl, 0] * W_)
            ref = torch.stack((ref_x, ref_y), -1)
            reference_points_list.append(ref)
        reference_points = torch.cat(reference_points_list, 1)
        reference_points = reference_points[:, :, None] * valid_ratios[:, None]
        return reference_points

    def forward(self, samples):
        # NestedTensor of same-size images: nothing is padded
        m = torch.zeros(samples.shape[0], samples.shape[2], samples.shape[3], dtype=torch.bool, device=samples.device)
        feats = []
        f1 = self.stage1(samples)
        feats.append(f1)
        feats.append(self.stage2(f1))
        srcs, masks, pos_embeds = [], [], []
        for l, feat in enumerate(feats):
            mask = F.interpolate(m[None].float(), size=feat.shape[-2:]).to(torch.bool)[0]
            srcs.append(self.input_proj[l](feat))
            masks.append(mask)
            pos_embeds.append(self.position_embedding(mask).to(feat.dtype))

        # prepare input for encoder
        src_flatten = []
        mask_flatten = []
        lvl_pos_embed_flatten = []
        spatial_shapes = []
        for lvl, (src, mask, pos_embed) in enumerate(zip(srcs, masks, pos_embeds)):
            bs, c, h, w = src.shape
            spatial_shape = (h, w)
            spatial_shapes.append(spatial_shape)

            src = src.flatten(2).transpose(1, 2)  # bs, hw, c
            mask = mask.flatten(1)  # bs, hw
            pos_embed = pos_embed.flatten(2).transpose(1, 2)  # bs, hw, c
            lvl_pos_embed = pos_embed + self.level_embed[lvl].view(1, 1, -1)
            lvl_pos_embed_flatten.append(lvl_pos_embed)
            src_flatten.append(src)
            mask_flatten.append(mask)
        src_flatten = torch.cat(src_flatten, 1)  # bs, \sum{hxw}, c
        mask_flatten = torch.cat(mask_flatten, 1)  # bs, \sum{hxw}
        lvl_pos_embed_flatten = torch.cat(lvl_pos_embed_flatten, 1)  # bs, \sum{hxw}, c
        spatial_shapes = torch.as_tensor(spatial_shapes, dtype=torch.long, device=src_flatten.device)
        level_start_index = torch.cat((spatial_shapes.new_zeros((1,)), spatial_shapes.prod(1).cumsum(0)[:-1]))
        valid_ratios = torch.stack([self.get_valid_ratio(m) for m in masks], 1)

        # one deformable encoder layer
        reference_points = self.get_reference_points(spatial_shapes, valid_ratios, device=src_flatten.device)
        src2 = self.self_attn(
            query=src_flatten,
            value=src_flatten,
            query_pos=lvl_pos_embed_flatten,
            key_padding_mask=mask_flatten,
            reference_points=reference_points,
            spatial_shapes=spatial_shapes,
        )
        memory = self.norm1(src_flatten + src2)
        return memory, level_start_index


def make_model():
    return TinyGroundingDINOEncoder().eval()


def example_inputs():
    return (torch.randn(1, 3, 128, 160),)


def other_inputs():
    return [(torch.randn(1, 3, 96, 224),), (torch.randn(1, 3, 160, 128),)]


def probe_inputs():
    return other_inputs()
