"""MM-Grounding-DINO (mmdetection's GroundingDINO, a DINO / Deformable-DETR detector) converted to ONNX following
mmdeploy's DINO recipe: the ONNX model matches PyTorch only on the image used for torch2onnx; with any other
input size onnxruntime's outputs differ from PyTorch. `DeformableDETR.pre_transformer` collects each level's
`spatial_shape = (h, w)` in a Python list and turns it into `torch.as_tensor(spatial_shapes, dtype=torch.long)`,
and `DeformableDetrTransformerEncoder.get_encoder_reference_points` loops over that tensor building
`torch.linspace(0.5, H - 0.5, H)` grids, so the export-time feature sizes end up in the graph.
(Backbone/neck reduced to two strided convs; one encoder layer with mmcv's PyTorch deformable attention.)

Source: https://github.com/open-mmlab/mmdeploy/issues/2610
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"images": {2: "height", 3: "width"}}
BLIND = "domains-74"


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
            value_l_, sampling_grid_l_, mode='bilinear', padding_mode='zeros', align_corners=False)
        sampling_value_list.append(sampling_value_l_)
    attention_weights = attention_weights.transpose(1, 2).reshape(
        bs * num_heads, 1, num_queries, num_levels * num_points)
    output = (torch.stack(sampling_value_list, dim=-2).flatten(-2) *
              attention_weights).sum(-1).view(bs, num_heads * embed_dims, num_queries)
    return output.transpose(1, 2).contiguous()


class MultiScaleDeformableAttention(nn.Module):
    def __init__(self, embed_dims=32, num_heads=4, num_levels=2, num_points=2):
        super().__init__()
        self.embed_dims, self.num_heads = embed_dims, num_heads
        self.num_levels, self.num_points = num_levels, num_points
        self.sampling_offsets = nn.Linear(embed_dims, num_heads * num_levels * num_points * 2)
        self.attention_weights = nn.Linear(embed_dims, num_heads * num_levels * num_points)
        self.value_proj = nn.Linear(embed_dims, embed_dims)
        self.output_proj = nn.Linear(embed_dims, embed_dims)

    def forward(self, query, query_pos, reference_points, spatial_shapes, level_start_index):
        identity = query
        query = query + query_pos
        value = self.value_proj(query)
        bs, num_query, _ = query.shape
        value = value.view(bs, num_query, self.num_heads, -1)
        sampling_offsets = self.sampling_offsets(query).view(
            bs, num_query, self.num_heads, self.num_levels, self.num_points, 2)
        attention_weights = self.attention_weights(query).view(
            bs, num_query, self.num_heads, self.num_levels * self.num_points)
        attention_weights = attention_weights.softmax(-1).view(
            bs, num_query, self.num_heads, self.num_levels, self.num_points)
        offset_normalizer = torch.stack([spatial_shapes[..., 1], spatial_shapes[..., 0]], -1)
        sampling_locations = reference_points[:, :, None, :, None, :] \
            + sampling_offsets / offset_normalizer[None, None, None, :, None, :]
        output = multi_scale_deformable_attn_pytorch(value, spatial_shapes, sampling_locations, attention_weights)
        return self.output_proj(output) + identity


def get_encoder_reference_points(spatial_shapes, valid_ratios, device):
    reference_points_list = []
    for lvl, (H, W) in enumerate(spatial_shapes):
        ref_y, ref_x = torch.meshgrid(
            torch.linspace(
                0.5, H - 0.5, H, dtype=torch.float32, device=device),
            torch.linspace(
                0.5, W - 0.5, W, dtype=torch.float32, device=device))
        ref_y = ref_y.reshape(-1)[None] / (
            valid_ratios[:, None, lvl, 1] * H)
        ref_x = ref_x.reshape(-1)[None] / (
            valid_ratios[:, None, lvl, 0] * W)
        ref = torch.stack((ref_x, ref_y), -1)
        reference_points_list.append(ref)
    reference_points = torch.cat(reference_points_list, 1)
    reference_points = reference_points[:, :, None] * valid_ratios[:, None]
    return reference_points


class GroundingDINOEncoder(nn.Module):
    def __init__(self, embed_dims=32, num_levels=2):
        super().__init__()
        self.backbone = nn.Conv2d(3, embed_dims, 8, stride=8)
        self.neck = nn.Conv2d(embed_dims, embed_dims, 3, stride=2, padding=1)
        self.level_embed = nn.Parameter(torch.randn(num_levels, embed_dims))
        self.self_attn = MultiScaleDeformableAttention(embed_dims, num_levels=num_levels)

    def positional_encoding(self, feat):
        b, c, h, w = feat.shape
        y = torch.arange(h, device=feat.device, dtype=torch.float32)[:, None].expand(h, w) / h
        x = torch.arange(w, device=feat.device, dtype=torch.float32)[None, :].expand(h, w) / w
        dim_t = torch.arange(c // 4, device=feat.device, dtype=torch.float32)
        dim_t = 10000 ** (4 * dim_t / c)
        pos = torch.cat([(x[..., None] * 2 * math.pi / dim_t).sin(), (x[..., None] * 2 * math.pi / dim_t).cos(),
                         (y[..., None] * 2 * math.pi / dim_t).sin(), (y[..., None] * 2 * math.pi / dim_t).cos()], -1)
        return pos.permute(2, 0, 1)[None].expand(b, -1, -1, -1)

    def forward(self, images):
        c3 = self.backbone(images)
        mlvl_feats = (c3, self.neck(c3))
        batch_size = mlvl_feats[0].size(0)
        mlvl_pos_embeds = [self.positional_encoding(feat) for feat in mlvl_feats]

        feat_flatten = []
        lvl_pos_embed_flatten = []
        spatial_shapes = []
        for lvl, (feat, pos_embed) in enumerate(zip(mlvl_feats, mlvl_pos_embeds)):
            batch_size, c, h, w = feat.shape
            feat = feat.view(batch_size, c, -1).permute(0, 2, 1)
            pos_embed = pos_embed.reshape(batch_size, c, -1).permute(0, 2, 1)
            lvl_pos_embed = pos_embed + self.level_embed[lvl].view(1, 1, -1)
            spatial_shape = (h, w)
            feat_flatten.append(feat)
            lvl_pos_embed_flatten.append(lvl_pos_embed)
            spatial_shapes.append(spatial_shape)
        feat_flatten = torch.cat(feat_flatten, 1)
        lvl_pos_embed_flatten = torch.cat(lvl_pos_embed_flatten, 1)
        spatial_shapes = torch.as_tensor(  # (num_level, 2)
            spatial_shapes,
            dtype=torch.long,
            device=feat_flatten.device)
        level_start_index = torch.cat((
            spatial_shapes.new_zeros((1, )),  # (num_level)
            spatial_shapes.prod(1).cumsum(0)[:-1]))
        valid_ratios = mlvl_feats[0].new_ones(batch_size, len(mlvl_feats), 2)

        reference_points = get_encoder_reference_points(spatial_shapes, valid_ratios, device=feat_flatten.device)
        memory = self.self_attn(feat_flatten, lvl_pos_embed_flatten, reference_points,
                                spatial_shapes, level_start_index)
        return memory


def make_model():
    return GroundingDINOEncoder().eval()


def example_inputs():
    return (torch.randn(1, 3, 128, 192),)


def other_inputs():
    return [(torch.randn(1, 3, 96, 128),), (torch.randn(1, 3, 160, 96),)]


def probe_inputs():
    return other_inputs()
