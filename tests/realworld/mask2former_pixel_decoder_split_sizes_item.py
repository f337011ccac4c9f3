"""Mask2Former pixel decoder: the per-level sizes are packed into a `spatial_shapes` tensor, the
`level_start_index` is a cumsum over it, and the encoder output is split back with
`torch.split(last_hidden_state, [size.item() for size in split_sizes], dim=1)` and reshaped with
`spatial_shapes[i][0], spatial_shapes[i][1]`; torch.export fails on the data-dependent sizes.

Source: https://github.com/huggingface/transformers/pull/34393
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"pixel_values": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-29"


class Mask2FormerPixelDecoder(nn.Module):
    def __init__(self, feature_dim=16, num_feature_levels=3):
        super().__init__()
        self.num_feature_levels = num_feature_levels
        self.num_fpn_levels = 1
        # tiny backbone giving strides 4, 8, 16, 32
        self.stem = nn.Conv2d(3, 8, 3, stride=4, padding=1)
        self.stages = nn.ModuleList([nn.Conv2d(8, 8, 3, stride=2, padding=1) for _ in range(3)])
        self.input_projections = nn.ModuleList([nn.Conv2d(8, feature_dim, 1) for _ in range(num_feature_levels)])
        self.level_embed = nn.Parameter(torch.randn(num_feature_levels, feature_dim))
        self.encoder = nn.Linear(feature_dim, feature_dim)  # stands in for the deformable encoder
        self.lateral_convolutions = nn.ModuleList([nn.Conv2d(8, feature_dim, 1)])
        self.output_convolutions = nn.ModuleList([nn.Conv2d(feature_dim, feature_dim, 3, padding=1)])
        self.mask_projection = nn.Conv2d(feature_dim, feature_dim, 1)

    def forward(self, pixel_values):
        x = self.stem(pixel_values)
        features = [x]
        for stage in self.stages:
            x = stage(x)
            features.append(x)
        # low to high resolution, like the transformer_in_features
        input_embeds = [proj(f) for proj, f in zip(self.input_projections, features[::-1][: self.num_feature_levels])]
        spatial_shapes = [(embed.shape[2], embed.shape[3]) for embed in input_embeds]
        input_embeds_flat = torch.cat([embed.flatten(2).transpose(1, 2) for embed in input_embeds], 1)
        spatial_shapes = torch.as_tensor(spatial_shapes, dtype=torch.long, device=input_embeds_flat.device)
        level_pos_embed_flat = [
            torch.zeros_like(e.flatten(2).transpose(1, 2)) + self.level_embed[i].view(1, 1, -1)
            for i, e in enumerate(input_embeds)
        ]
        level_pos_embed_flat = torch.cat(level_pos_embed_flat, 1)
        level_start_index = torch.cat((spatial_shapes.new_zeros((1,)), spatial_shapes.prod(1).cumsum(0)[:-1]))

        last_hidden_state = self.encoder(input_embeds_flat + level_pos_embed_flat)
        batch_size = last_hidden_state.shape[0]
        split_sizes = [None] * self.num_feature_levels
        for i in range(self.num_feature_levels):
            if i < self.num_feature_levels - 1:
                split_sizes[i] = level_start_index[i + 1] - level_start_index[i]
            else:
                split_sizes[i] = last_hidden_state.shape[1] - level_start_index[i]
        encoder_output = torch.split(last_hidden_state, [size.item() for size in split_sizes], dim=1)
        outputs = [
            x.transpose(1, 2).view(batch_size, -1, spatial_shapes[i][0], spatial_shapes[i][1])
            for i, x in enumerate(encoder_output)
        ]
        for idx, feature in enumerate(features[: self.num_fpn_levels][::-1]):
            lateral_conv = self.lateral_convolutions[idx]
            output_conv = self.output_convolutions[idx]
            current_fpn = lateral_conv(feature)
            out = current_fpn + nn.functional.interpolate(
                outputs[-1], size=current_fpn.shape[-2:], mode="bilinear", align_corners=False
            )
            out = output_conv(out)
            outputs.append(out)
        return self.mask_projection(outputs[-1]), outputs[0]


def make_model():
    return Mask2FormerPixelDecoder().eval()


def example_inputs():
    return (torch.randn(2, 3, 128, 128),)


def other_inputs():
    return [(torch.randn(3, 3, 96, 160),), (torch.randn(1, 3, 192, 64),)]


def probe_inputs():
    return other_inputs()
