"""mmseg Mask2Former compiled with torch_tensorrt.compile (torch.export underneath): the mmdet
MSDeformAttnPixelDecoder keeps each level's size as a tensor (`torch._shape_as_tensor(feat)[2:]`,
`spatial_shapes = torch.cat(spatial_shapes).view(-1, 2)`), and mmcv's `multi_scale_deformable_attn_pytorch`
splits the value with `value.split([H_ * W_ for H_, W_ in value_spatial_shapes])` and reshapes each level with
`.reshape(bs * num_heads, embed_dims, H_, W_)`, which fails with "Could not guard on data-dependent expression
Eq(256*u0, 262144)" (the user even tried hard-coding the sizes in that one line). Backbone reduced to strided convs.

Source: https://github.com/pytorch/TensorRT/issues/3098
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"img": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-55"


def multi_scale_deformable_attn_pytorch(value, value_spatial_shapes, sampling_locations, attention_weights):
    bs, _, num_heads, embed_dims = value.shape
    _, num_queries, num_heads, num_levels, num_points, _ =\
        sampling_locations.shape
    value_list = value.split([H_ * W_ for H_, W_ in value_spatial_shapes],
                             dim=1)
    sampling_grids = 2 * sampling_locations - 1
    sampling_value_list = []
    for level, (H_, W_) in enumerate(value_spatial_shapes):
        value_l_ = value_list[level].flatten(2).transpose(1, 2).reshape(
            bs * num_heads, embed_dims, H_, W_)
        sampling_grid_l_ = sampling_grids[:, :, :,
                                          level].transpose(1, 2).flatten(0, 1)
        sampling_value_l_ = F.grid_sample(
            value_l_,
            sampling_grid_l_,
            mode='bilinear',
            padding_mode='zeros',
            align_corners=False)
        sampling_value_list.append(sampling_value_l_)
    attention_weights = attention_weights.transpose(1, 2).reshape(
        bs * num_heads, 1, num_queries, num_levels * num_points)
    output = (torch.stack(sampling_value_list, dim=-2).flatten(-2) *
              attention_weights).sum(-1).view(bs, num_heads * embed_dims,
                                              num_queries)
    return output.transpose(1, 2).contiguous()


class MultiScaleDeformableAttention(nn.Module):
    def __init__(self, embed_dims=64, num_heads=8, num_levels=3, num_points=4):
        super().__init__()
        self.embed_dims, self.num_heads = embed_dims, num_heads
        self.num_levels, self.num_points = num_levels, num_points
        self.sampling_offsets = nn.Linear(embed_dims, num_heads * num_levels * num_points * 2)
        self.attention_weights = nn.Linear(embed_dims, num_heads * num_levels * num_points)
        self.value_proj = nn.Linear(embed_dims, embed_dims)
        self.output_proj = nn.Linear(embed_dims, embed_dims)

    def forward(self, query, query_pos=None, reference_points=None, spatial_shapes=None, level_start_index=None):
        identity = query
        value = query
        if query_pos is not None:
            query = query + query_pos
        bs, num_query, _ = query.shape
        bs, num_value, _ = value.shape
        assert (spatial_shapes[:, 0] * spatial_shapes[:, 1]).sum() == num_value

        value = self.value_proj(value)
        value = value.view(bs, num_value, self.num_heads, -1)
        sampling_offsets = self.sampling_offsets(query).view(
            bs, num_query, self.num_heads, self.num_levels, self.num_points, 2)
        attention_weights = self.attention_weights(query).view(
            bs, num_query, self.num_heads, self.num_levels * self.num_points)
        attention_weights = attention_weights.softmax(-1)
        attention_weights = attention_weights.view(bs, num_query, self.num_heads,
                                                   self.num_levels, self.num_points)
        offset_normalizer = torch.stack(
            [spatial_shapes[..., 1], spatial_shapes[..., 0]], -1)
        sampling_locations = reference_points[:, :, None, :, None, :] \
            + sampling_offsets \
            / offset_normalizer[None, None, None, :, None, :]
        output = multi_scale_deformable_attn_pytorch(
            value, spatial_shapes, sampling_locations, attention_weights)
        output = self.output_proj(output)
        return output + identity


class MSDeformAttnPixelDecoder(nn.Module):
    def __init__(self, in_channels=(16, 32, 64, 64), strides=(4, 8, 16, 32), feat_channels=64, num_encoder_levels=3):
        super().__init__()
        self.strides = strides
        self.num_input_levels = len(in_channels)
        self.num_encoder_levels = num_encoder_levels
        self.input_convs = nn.ModuleList(
            [nn.Conv2d(in_channels[i], feat_channels, 1)
             for i in range(self.num_input_levels - 1, self.num_input_levels - num_encoder_levels - 1, -1)])
        self.encoder = MultiScaleDeformableAttention(feat_channels, num_levels=num_encoder_levels)
        self.level_encoding = nn.Embedding(num_encoder_levels, feat_channels)
        self.lateral_conv = nn.Conv2d(in_channels[0], feat_channels, 1)
        self.mask_feature = nn.Conv2d(feat_channels, feat_channels, 1)

    def single_level_grid_priors(self, featmap_size, level_idx, device):
        feat_h, feat_w = featmap_size
        stride = self.strides[level_idx]
        shift_x = (torch.arange(0, feat_w, device=device) + 0.5) * stride
        shift_y = (torch.arange(0, feat_h, device=device) + 0.5) * stride
        yy, xx = torch.meshgrid(shift_y, shift_x, indexing='ij')
        return torch.stack([xx.reshape(-1), yy.reshape(-1)], dim=-1)

    def forward(self, feats):
        batch_size = feats[0].shape[0]
        encoder_input_list = []
        level_positional_encoding_list = []
        spatial_shapes = []
        reference_points_list = []
        for i in range(self.num_encoder_levels):
            level_idx = self.num_input_levels - i - 1
            feat = feats[level_idx]
            feat_projected = self.input_convs[i](feat)
            feat_hw = torch._shape_as_tensor(feat)[2:].to(feat.device)
            level_embed = self.level_encoding.weight[i]
            level_pos_embed = level_embed.view(1, -1, 1, 1) + torch.zeros_like(feat_projected)
            reference_points = self.single_level_grid_priors(
                feat.shape[-2:], level_idx, device=feat.device)
            feat_wh = feat_hw.unsqueeze(0).flip(dims=[0, 1])
            factor = feat_wh * self.strides[level_idx]
            reference_points = reference_points / factor

            feat_projected = feat_projected.flatten(2).permute(0, 2, 1)
            level_pos_embed = level_pos_embed.flatten(2).permute(0, 2, 1)
            encoder_input_list.append(feat_projected)
            level_positional_encoding_list.append(level_pos_embed)
            spatial_shapes.append(feat_hw)
            reference_points_list.append(reference_points)
        encoder_inputs = torch.cat(encoder_input_list, dim=1)
        level_positional_encodings = torch.cat(level_positional_encoding_list, dim=1)
        num_queries_per_level = [e[0] * e[1] for e in spatial_shapes]
        spatial_shapes = torch.cat(spatial_shapes).view(-1, 2)
        level_start_index = torch.cat((spatial_shapes.new_zeros(
            (1, )), spatial_shapes.prod(1).cumsum(0)[:-1]))
        reference_points = torch.cat(reference_points_list, dim=0)
        reference_points = reference_points[None, :, None].repeat(
            batch_size, 1, self.num_encoder_levels, 1)
        memory = self.encoder(
            query=encoder_inputs,
            query_pos=level_positional_encodings,
            reference_points=reference_points,
            spatial_shapes=spatial_shapes,
            level_start_index=level_start_index)
        memory = memory.permute(0, 2, 1)

        outs = torch.split(memory, num_queries_per_level, dim=-1)
        outs = [
            x.reshape(batch_size, -1, spatial_shapes[i][0],
                      spatial_shapes[i][1]) for i, x in enumerate(outs)
        ]
        cur_feat = self.lateral_conv(feats[0])
        y = cur_feat + F.interpolate(outs[-1], size=cur_feat.shape[-2:], mode='bilinear', align_corners=False)
        mask_feature = self.mask_feature(y)
        return mask_feature, outs[0]


class Mask2FormerPixelPath(nn.Module):
    def __init__(self):
        super().__init__()
        chans = [3, 16, 32, 64, 64]
        self.stem = nn.Conv2d(3, 16, 4, stride=4)
        self.stages = nn.ModuleList([nn.Conv2d(chans[i], chans[i + 1], 3, stride=2, padding=1) for i in range(1, 4)])
        self.pixel_decoder = MSDeformAttnPixelDecoder()

    def forward(self, img):
        x = self.stem(img)
        feats = [x]
        for stage in self.stages:
            x = stage(x)
            feats.append(x)
        return self.pixel_decoder(feats)


def make_model():
    return Mask2FormerPixelPath().eval()


def example_inputs():
    return (torch.randn(2, 3, 128, 160),)


def other_inputs():
    return [(torch.randn(1, 3, 96, 128),), (torch.randn(3, 3, 160, 96),)]


def probe_inputs():
    return other_inputs()
