"""Mask2Former (HF transformers) pixel decoder: the per-level sizes are packed into a tensor
(`spatial_shapes = torch.as_tensor(...)`, `level_start_index` from its cumsum), then the encoder output is
split with `[size.item() for size in split_sizes]` and reshaped with `view(..., spatial_shapes[i][0],
spatial_shapes[i][1])`; the report says this erasure of shape info makes torch.export fail.

Source: https://github.com/huggingface/transformers/issues/34390
"""
import math

import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"pixel_values": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-13"


class Mask2FormerSinePositionEmbedding(nn.Module):
    def __init__(self, num_pos_feats=16, temperature=10000):
        super().__init__()
        self.num_pos_feats = num_pos_feats
        self.temperature = temperature
        self.scale = 2 * math.pi

    def forward(self, x, mask=None):
        if mask is None:
            mask = torch.zeros((x.size(0), x.size(2), x.size(3)), device=x.device, dtype=torch.bool)
        not_mask = (~mask).to(x.dtype)
        y_embed = not_mask.cumsum(1, dtype=x.dtype)
        x_embed = not_mask.cumsum(2, dtype=x.dtype)
        eps = 1e-6
        y_embed = y_embed / (y_embed[:, -1:, :] + eps) * self.scale
        x_embed = x_embed / (x_embed[:, :, -1:] + eps) * self.scale
        dim_t = torch.arange(self.num_pos_feats, dtype=torch.int64, device=x.device).type_as(x)
        dim_t = self.temperature ** (2 * torch.div(dim_t, 2, rounding_mode="floor") / self.num_pos_feats)
        pos_x = x_embed[:, :, :, None] / dim_t
        pos_y = y_embed[:, :, :, None] / dim_t
        pos_x = torch.stack((pos_x[:, :, :, 0::2].sin(), pos_x[:, :, :, 1::2].cos()), dim=4).flatten(3)
        pos_y = torch.stack((pos_y[:, :, :, 0::2].sin(), pos_y[:, :, :, 1::2].cos()), dim=4).flatten(3)
        return torch.cat((pos_y, pos_x), dim=3).permute(0, 3, 1, 2)


class EncoderStandIn(nn.Module):
    """Stands in for the multi-scale deformable-attention encoder (token-wise layer)."""

    def __init__(self, d_model):
        super().__init__()
        self.fc = nn.Linear(d_model, d_model)
        self.norm = nn.LayerNorm(d_model)

    def forward(self, inputs_embeds, attention_mask, position_embeddings, spatial_shapes, level_start_index, valid_ratios):
        return self.norm(inputs_embeds + self.fc(inputs_embeds + position_embeddings))


class Mask2FormerPixelDecoder(nn.Module):
    def __init__(self, feature_channels=(8, 16, 32, 64), feature_dim=32, mask_dim=32):
        super().__init__()
        self.num_feature_levels = 3
        self.num_fpn_levels = 1
        self.position_embedding = Mask2FormerSinePositionEmbedding(num_pos_feats=feature_dim // 2)
        self.level_embed = nn.Parameter(torch.randn(self.num_feature_levels, feature_dim))
        self.input_projections = nn.ModuleList(
            [nn.Sequential(nn.Conv2d(c, feature_dim, kernel_size=1), nn.GroupNorm(4, feature_dim))
             for c in feature_channels[::-1][: self.num_feature_levels]]
        )
        self.encoder = EncoderStandIn(feature_dim)
        self.lateral_convolutions = [nn.Conv2d(feature_channels[0], feature_dim, kernel_size=1, bias=False)]
        self.output_convolutions = [nn.Sequential(nn.Conv2d(feature_dim, feature_dim, 3, padding=1), nn.ReLU())]
        self.adapter_1 = self.lateral_convolutions[0]
        self.layer_1 = self.output_convolutions[0]
        self.mask_projection = nn.Conv2d(feature_dim, mask_dim, kernel_size=1)

    def get_valid_ratio(self, mask):
        _, height, width = mask.shape
        valid_height = torch.sum(~mask[:, :, 0], 1)
        valid_width = torch.sum(~mask[:, 0, :], 1)
        valid_ratio_heigth = valid_height.float() / height
        valid_ratio_width = valid_width.float() / width
        return torch.stack([valid_ratio_width, valid_ratio_heigth], -1)

    def forward(self, features):
        input_embeds = []
        position_embeddings = []
        for level, x in enumerate(features[::-1][: self.num_feature_levels]):
            input_embeds.append(self.input_projections[level](x))
            position_embeddings.append(self.position_embedding(x))

        masks = [
            torch.zeros((x.size(0), x.size(2), x.size(3)), device=x.device, dtype=torch.bool) for x in input_embeds
        ]

        # Prepare encoder inputs (by flattening)
        spatial_shapes = [(embed.shape[2], embed.shape[3]) for embed in input_embeds]
        input_embeds_flat = torch.cat([embed.flatten(2).transpose(1, 2) for embed in input_embeds], 1)
        spatial_shapes = torch.as_tensor(spatial_shapes, dtype=torch.long, device=input_embeds_flat.device)
        masks_flat = torch.cat([mask.flatten(1) for mask in masks], 1)

        position_embeddings = [embed.flatten(2).transpose(1, 2) for embed in position_embeddings]
        level_pos_embed_flat = [x + self.level_embed[i].view(1, 1, -1) for i, x in enumerate(position_embeddings)]
        level_pos_embed_flat = torch.cat(level_pos_embed_flat, 1)

        level_start_index = torch.cat((spatial_shapes.new_zeros((1,)), spatial_shapes.prod(1).cumsum(0)[:-1]))
        valid_ratios = torch.stack([self.get_valid_ratio(mask) for mask in masks], 1)

        last_hidden_state = self.encoder(
            inputs_embeds=input_embeds_flat,
            attention_mask=masks_flat,
            position_embeddings=level_pos_embed_flat,
            spatial_shapes=spatial_shapes,
            level_start_index=level_start_index,
            valid_ratios=valid_ratios,
        )
        batch_size = last_hidden_state.shape[0]

        split_sizes = [None] * self.num_feature_levels
        for i in range(self.num_feature_levels):
            if i < self.num_feature_levels - 1:
                split_sizes[i] = level_start_index[i + 1] - level_start_index[i]
            else:
                split_sizes[i] = last_hidden_state.shape[1] - level_start_index[i]

        encoder_output = torch.split(last_hidden_state, [size.item() for size in split_sizes], dim=1)

        # Compute final features
        outputs = [
            x.transpose(1, 2).view(batch_size, -1, spatial_shapes[i][0], spatial_shapes[i][1])
            for i, x in enumerate(encoder_output)
        ]

        # Append extra FPN levels to outputs, ordered from low to high resolution
        for idx, feature in enumerate(features[: self.num_fpn_levels][::-1]):
            lateral_conv = self.lateral_convolutions[idx]
            output_conv = self.output_convolutions[idx]
            current_fpn = lateral_conv(feature)
            out = current_fpn + nn.functional.interpolate(
                outputs[-1], size=current_fpn.shape[-2:], mode="bilinear", align_corners=False
            )
            out = output_conv(out)
            outputs.append(out)

        multi_scale_features = tuple(outputs[: self.num_feature_levels])
        return (self.mask_projection(outputs[-1]),) + multi_scale_features


class Mask2FormerPixelLevelModule(nn.Module):
    def __init__(self):
        super().__init__()
        # backbone stand-in: feature maps at strides 4, 8, 16, 32
        self.stem = nn.Conv2d(3, 8, kernel_size=4, stride=4)
        self.stages = nn.ModuleList([nn.Conv2d(c, 2 * c, kernel_size=2, stride=2) for c in (8, 16, 32)])
        self.decoder = Mask2FormerPixelDecoder()

    def forward(self, pixel_values):
        x = self.stem(pixel_values)
        backbone_features = [x]
        for stage in self.stages:
            x = stage(x)
            backbone_features.append(x)
        return self.decoder(tuple(backbone_features))


def make_model():
    return Mask2FormerPixelLevelModule().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 96),)


def other_inputs():
    return [(torch.randn(2, 3, 96, 64),), (torch.randn(3, 3, 128, 128),)]


def probe_inputs():
    return other_inputs()
