"""RF-DETR's Transformer builds `spatial_shapes = torch.stack([torch._shape_as_tensor(src)[2:4] for src in srcs])`
(added so the TorchScript ONNX/TensorRT export keeps a valid shape-tensor source) and derives `level_start_index`
from it; the ExecuTorch `.pte` export PR reports that this private op "isn't traceable by torch.export", which aborts
with "RuntimeError: The tensor has a non-zero number of elements, but its data is not allocated yet", and branches on
`torch.compiler.is_exporting()` to work around it. (Backbone/projector reduced to strided convs, one decoder layer.)

Source: https://github.com/roboflow/rf-detr/pull/1142
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"images": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-55"


def ms_deform_attn_core_pytorch(value, value_spatial_shapes, sampling_locations, attention_weights):
    # for debug and test only,
    # need to use cuda version instead
    N_, S_, M_, D_ = value.shape
    _, Lq_, M_, L_, P_, _ = sampling_locations.shape
    value_list = value.split([H_ * W_ for H_, W_ in value_spatial_shapes], dim=1)
    sampling_grids = 2 * sampling_locations - 1
    sampling_value_list = []
    for lid_, (H_, W_) in enumerate(value_spatial_shapes):
        # N_, H_*W_, M_, D_ -> N_, H_*W_, M_*D_ -> N_, M_*D_, H_*W_ -> N_*M_, D_, H_, W_
        value_l_ = value_list[lid_].flatten(2).transpose(1, 2).reshape(N_*M_, D_, H_, W_)
        # N_, Lq_, M_, P_, 2 -> N_, M_, Lq_, P_, 2 -> N_*M_, Lq_, P_, 2
        sampling_grid_l_ = sampling_grids[:, :, :, lid_].transpose(1, 2).flatten(0, 1)
        # N_*M_, D_, Lq_, P_
        sampling_value_l_ = F.grid_sample(value_l_, sampling_grid_l_,
                                          mode='bilinear', padding_mode='zeros', align_corners=False)
        sampling_value_list.append(sampling_value_l_)
    attention_weights = attention_weights.transpose(1, 2).reshape(N_*M_, 1, Lq_, L_*P_)
    output = (torch.stack(sampling_value_list, dim=-2).flatten(-2) * attention_weights).sum(-1).view(N_, M_*D_, Lq_)
    return output.transpose(1, 2).contiguous()


class MSDeformAttn(nn.Module):
    def __init__(self, d_model=64, n_levels=2, n_heads=4, n_points=4):
        super().__init__()
        self.d_model, self.n_levels, self.n_heads, self.n_points = d_model, n_levels, n_heads, n_points
        self.sampling_offsets = nn.Linear(d_model, n_heads * n_levels * n_points * 2)
        self.attention_weights = nn.Linear(d_model, n_heads * n_levels * n_points)
        self.value_proj = nn.Linear(d_model, d_model)
        self.output_proj = nn.Linear(d_model, d_model)

    def forward(self, query, reference_points, input_flatten, input_spatial_shapes, input_level_start_index):
        N, Len_q, _ = query.shape
        N, Len_in, _ = input_flatten.shape
        value = self.value_proj(input_flatten)
        value = value.view(N, Len_in, self.n_heads, self.d_model // self.n_heads)
        sampling_offsets = self.sampling_offsets(query).view(N, Len_q, self.n_heads, self.n_levels, self.n_points, 2)
        attention_weights = self.attention_weights(query).view(N, Len_q, self.n_heads, self.n_levels * self.n_points)
        attention_weights = F.softmax(attention_weights, -1).view(N, Len_q, self.n_heads, self.n_levels, self.n_points)
        sampling_locations = reference_points[:, :, None, :, None, :2] \
            + sampling_offsets / self.n_points * reference_points[:, :, None, :, None, 2:] * 0.5
        output = ms_deform_attn_core_pytorch(value, input_spatial_shapes, sampling_locations, attention_weights)
        return self.output_proj(output)


class Transformer(nn.Module):
    def __init__(self, d_model=64, num_queries=30, num_feature_levels=2):
        super().__init__()
        self.cross_attn = MSDeformAttn(d_model, num_feature_levels)
        self.query_feat = nn.Parameter(torch.randn(num_queries, d_model))
        self.refpoint_embed = nn.Parameter(torch.rand(num_queries, 4))
        self.num_feature_levels = num_feature_levels

    def forward(self, srcs, pos_embeds):
        src_flatten = []
        lvl_pos_embed_flatten_parts = []
        spatial_shapes_hw = []
        for lvl, (src, pos_embed) in enumerate(zip(srcs, pos_embeds)):
            _, c, h, w = src.shape
            spatial_shapes_hw.append((h, w))

            src = src.flatten(2).transpose(1, 2)  # bs, hw, c
            pos_embed = pos_embed.flatten(2).transpose(1, 2)  # bs, hw, c
            lvl_pos_embed_flatten_parts.append(pos_embed)
            src_flatten.append(src)
        memory = torch.cat(src_flatten, 1)  # bs, \sum{hxw}, c
        lvl_pos_embed_flatten = torch.cat(lvl_pos_embed_flatten_parts, 1)  # bs, \sum{hxw}, c
        spatial_shapes = torch.stack([torch._shape_as_tensor(src)[2:4] for src in srcs]).to(
            device=srcs[0].device, dtype=torch.long
        )
        level_start_index = torch.cat((spatial_shapes.new_zeros((1,)), spatial_shapes.prod(1).cumsum(0)[:-1]))

        bs = memory.shape[0]
        tgt = self.query_feat.unsqueeze(0).expand(bs, -1, -1).contiguous()
        refpoint_embed = self.refpoint_embed.unsqueeze(0).expand(bs, -1, -1).contiguous()
        reference_points = refpoint_embed[:, :, None].repeat(1, 1, self.num_feature_levels, 1)
        hs = tgt + self.cross_attn(tgt, reference_points, memory + lvl_pos_embed_flatten,
                                   spatial_shapes, level_start_index)
        return hs, refpoint_embed


class LWDETR(nn.Module):
    def __init__(self, d_model=64):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, d_model, 8, stride=8), nn.GELU())
        self.down = nn.Conv2d(d_model, d_model, 3, stride=2, padding=1)
        self.pos = nn.Conv2d(d_model, d_model, 1)
        self.transformer = Transformer(d_model)
        self.class_embed = nn.Linear(d_model, 5)
        self.bbox_embed = nn.Linear(d_model, 4)

    def forward(self, images):
        p3 = self.backbone(images)
        p4 = self.down(p3)
        srcs = [p3, p4]
        pos_embeds = [self.pos(s) for s in srcs]
        hs, ref = self.transformer(srcs, pos_embeds)
        return self.class_embed(hs), (self.bbox_embed(hs) + ref).sigmoid()


def make_model():
    return LWDETR().eval()


def example_inputs():
    return (torch.randn(2, 3, 128, 160),)


def other_inputs():
    return [(torch.randn(1, 3, 96, 128),), (torch.randn(3, 3, 160, 96),)]


def probe_inputs():
    return other_inputs()
