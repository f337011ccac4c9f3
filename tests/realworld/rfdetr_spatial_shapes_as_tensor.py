"""RF-DETR (LW-DETR / Deformable-DETR lineage) transformer: `spatial_shapes` is collected as a Python list of
`(h, w)` per level and turned into a tensor with `torch.as_tensor(...)`, then `ms_deform_attn_core_pytorch`
splits and views the value with `[H * W for H, W in value_spatial_shapes]`; the fix PR says the exported ONNX
baked the spatial dimensions and batch size in as constants.

Source: https://github.com/roboflow/rf-detr/pull/871
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"images": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-5"


def ms_deform_attn_core_pytorch(value, value_spatial_shapes, sampling_locations, attention_weights):
    """for debug and test only, need to use cuda version instead"""
    # B, n_heads, head_dim, N
    B, n_heads, head_dim, _ = value.shape
    _, Len_q, n_heads, L, P, _ = sampling_locations.shape
    value_list = value.split([H * W for H, W in value_spatial_shapes], dim=3)
    sampling_grids = 2 * sampling_locations - 1
    sampling_value_list = []
    for lid_, (H, W) in enumerate(value_spatial_shapes):
        # B, n_heads, head_dim, H, W
        value_l_ = value_list[lid_].view(B * n_heads, head_dim, H, W)
        sampling_grid_l_ = sampling_grids[:, :, :, lid_].transpose(1, 2).flatten(0, 1)
        sampling_value_l_ = F.grid_sample(
            value_l_, sampling_grid_l_, mode="bilinear", padding_mode="zeros", align_corners=False
        )
        sampling_value_list.append(sampling_value_l_)
    attention_weights = attention_weights.transpose(1, 2).reshape(B * n_heads, 1, Len_q, L * P)
    sampling_value_list = torch.stack(sampling_value_list, dim=-2).flatten(-2)
    output = (sampling_value_list * attention_weights).sum(-1).view(B, n_heads * head_dim, Len_q)
    return output.transpose(1, 2).contiguous()


class MSDeformAttn(nn.Module):
    def __init__(self, d_model=32, n_levels=2, n_heads=4, n_points=2):
        super().__init__()
        self.n_levels, self.n_heads, self.n_points = n_levels, n_heads, n_points
        self.sampling_offsets = nn.Linear(d_model, n_heads * n_levels * n_points * 2)
        self.attention_weights = nn.Linear(d_model, n_heads * n_levels * n_points)
        self.value_proj = nn.Linear(d_model, d_model)
        self.output_proj = nn.Linear(d_model, d_model)

    def forward(self, query, reference_points, input_flatten, input_spatial_shapes):
        N, Len_q, _ = query.shape
        N, Len_in, _ = input_flatten.shape
        value = self.value_proj(input_flatten)
        value = value.view(N, Len_in, self.n_heads, -1).permute(0, 2, 3, 1).contiguous()
        sampling_offsets = self.sampling_offsets(query).view(N, Len_q, self.n_heads, self.n_levels, self.n_points, 2)
        attention_weights = self.attention_weights(query).view(N, Len_q, self.n_heads, self.n_levels * self.n_points)
        attention_weights = F.softmax(attention_weights, -1)
        offset_normalizer = torch.stack([input_spatial_shapes[..., 1], input_spatial_shapes[..., 0]], -1)
        sampling_locations = reference_points[:, :, None, :, None, :] \
            + sampling_offsets / offset_normalizer[None, None, None, :, None, :]
        output = ms_deform_attn_core_pytorch(value, input_spatial_shapes, sampling_locations, attention_weights)
        return self.output_proj(output)


class TinyDeformableDetr(nn.Module):
    def __init__(self, d_model=32, num_queries=10, num_classes=5):
        super().__init__()
        self.level1 = nn.Conv2d(3, d_model, 8, stride=8)
        self.level2 = nn.Conv2d(d_model, d_model, 2, stride=2)
        self.query_embed = nn.Embedding(num_queries, d_model)
        self.ref_point = nn.Linear(d_model, 2)
        self.cross_attn = MSDeformAttn(d_model)
        self.class_embed = nn.Linear(d_model, num_classes)
        self.bbox_embed = nn.Linear(d_model, 4)

    def forward(self, images):
        f1 = self.level1(images)
        srcs = [f1, self.level2(f1)]
        src_flatten = []
        spatial_shapes = []
        for lvl, src in enumerate(srcs):
            bs, c, h, w = src.shape
            spatial_shape = (h, w)
            spatial_shapes.append(spatial_shape)
            src = src.flatten(2).transpose(1, 2)  # bs, hw, c
            src_flatten.append(src)
        memory = torch.cat(src_flatten, 1)  # bs, \sum{hxw}, c
        spatial_shapes = torch.as_tensor(spatial_shapes, dtype=torch.long, device=memory.device)

        tgt = self.query_embed.weight.unsqueeze(0).repeat(bs, 1, 1)
        reference_points = self.ref_point(tgt).sigmoid()[:, :, None].repeat(1, 1, len(srcs), 1)
        hs = tgt + self.cross_attn(tgt, reference_points, memory, spatial_shapes)
        return self.class_embed(hs), self.bbox_embed(hs).sigmoid()


def make_model():
    return TinyDeformableDetr().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 96),)


def other_inputs():
    return [(torch.randn(2, 3, 96, 64),), (torch.randn(3, 3, 128, 128),)]


def probe_inputs():
    return other_inputs()
