"""Florence-2 (microsoft Hub remote code, modeling_florence2.py): `_encode_image` flattens the DaViT
features, takes `h, w = int(num_tokens ** 0.5), int(num_tokens ** 0.5)`, asserts a square map, views
the tokens as (h, w) for the learned 2D position embedding and pools `h*w` tokens. Converting Florence-2's
vision encoder to ONNX, the exported encoder only reproduced `_encode_image` for the image size it was
traced with; the reporter found the export input had to be the processor's 768x768 for the outputs to match.
(DaViT reduced to a stride-32 conv stem; position embeddings, pooling and projection kept.)

Source: https://github.com/huggingface/transformers.js/issues/1165
"""
import math

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"pixel_values": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-56"


class LearnedAbsolutePositionEmbedding2D(nn.Module):
    def __init__(self, embedding_dim=256, num_pos=50):
        super().__init__()
        self.row_embeddings = nn.Embedding(num_pos, embedding_dim // 2)
        self.column_embeddings = nn.Embedding(num_pos, embedding_dim - (embedding_dim // 2))

    def forward(self, pixel_values):
        if len(pixel_values.shape) != 4:
            raise ValueError('pixel_values must be a 4D tensor')
        height, width = pixel_values.shape[1:3]
        width_values = torch.arange(width, device=pixel_values.device)
        height_values = torch.arange(height, device=pixel_values.device)
        x_emb = self.column_embeddings(width_values)
        y_emb = self.row_embeddings(height_values)
        pos = torch.cat([x_emb.unsqueeze(0).repeat(height, 1, 1), y_emb.unsqueeze(1).repeat(1, width, 1)], dim=-1)
        pos = pos.permute(2, 0, 1)
        pos = pos.unsqueeze(0)
        pos = pos.repeat(pixel_values.shape[0], 1, 1, 1)
        pos = pos.permute(0, 2, 3, 1)
        return pos


class PositionalEmbeddingCosine1D(nn.Module):
    def __init__(self, embed_dim=512, max_seq_len=1024):
        super().__init__()
        self.embed_dim = embed_dim
        self.max_seq_len = max_seq_len
        factor = math.log(10000)
        denominator = torch.exp(-factor * torch.arange(0, self.embed_dim, 2) / self.embed_dim)
        frequencies = torch.arange(0, self.max_seq_len).reshape(self.max_seq_len, 1) * denominator
        pos_idx_to_embed = torch.zeros((self.max_seq_len, self.embed_dim))
        pos_idx_to_embed[:, 0::2] = torch.sin(frequencies)
        pos_idx_to_embed[:, 1::2] = torch.cos(frequencies)
        self.register_buffer("pos_idx_to_embed", pos_idx_to_embed)

    def forward(self, seq_embeds):
        shape_len = len(seq_embeds.shape)
        assert 2 <= shape_len <= 3
        len_seq = seq_embeds.size(-2)
        assert len_seq <= self.max_seq_len
        pos_embeds = self.pos_idx_to_embed[0:seq_embeds.size(-2), :]
        if shape_len == 3:
            pos_embeds = pos_embeds.view((1, pos_embeds.size(0), pos_embeds.size(1)))
        return pos_embeds


class DaViTStem(nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.convs = nn.Sequential(nn.Conv2d(3, 32, 7, 4, 3), nn.GELU(), nn.Conv2d(32, 48, 3, 2, 1), nn.GELU(),
                                   nn.Conv2d(48, 64, 3, 2, 1), nn.GELU(), nn.Conv2d(64, dim, 3, 2, 1))
        self.norm = nn.LayerNorm(dim)

    def forward_features_unpool(self, x):
        x = self.convs(x)
        return self.norm(x.flatten(2).transpose(1, 2))


class Florence2ImageEncoder(nn.Module):
    def __init__(self, image_dim_out=64, dim_projection=48):
        super().__init__()
        self.vision_tower = DaViTStem(image_dim_out)
        self.image_projection = nn.Parameter(torch.randn(image_dim_out, dim_projection) * 0.1)
        self.image_proj_norm = nn.LayerNorm(dim_projection)
        self.image_pos_embed = LearnedAbsolutePositionEmbedding2D(embedding_dim=image_dim_out, num_pos=50)
        self.visual_temporal_embed = PositionalEmbeddingCosine1D(embed_dim=image_dim_out, max_seq_len=100)
        self.image_feature_source = ['spatial_avg_pool', 'temporal_avg_pool']

    def _encode_image(self, pixel_values):
        if len(pixel_values.shape) == 4:
            batch_size, C, H, W = pixel_values.shape
            T = 1
            x = self.vision_tower.forward_features_unpool(pixel_values)
        else:
            raise ValueError(f'invalid image shape {pixel_values.shape}')

        if self.image_pos_embed is not None:
            x = x.view(batch_size * T, -1, x.shape[-1])
            num_tokens = x.shape[-2]
            h, w = int(num_tokens ** 0.5), int(num_tokens ** 0.5)
            assert h * w == num_tokens, 'only support square feature maps for now'
            x = x.view(batch_size * T, h, w, x.shape[-1])
            pos_embed = self.image_pos_embed(x)
            x = x + pos_embed
            x = x.view(batch_size, T * h*w, x.shape[-1])

        if self.visual_temporal_embed is not None:
            visual_temporal_embed = self.visual_temporal_embed(x.view(batch_size, T, -1, x.shape[-1])[:, :, 0])
            x = x.view(batch_size, T, -1, x.shape[-1]) + visual_temporal_embed.view(1, T, 1, x.shape[-1])

        x_feat_dict = {}

        spatial_avg_pool_x = x.view(batch_size, T, h*w, x.shape[-1]).mean(dim=2)
        x_feat_dict['spatial_avg_pool'] = spatial_avg_pool_x

        temporal_avg_pool_x = x.view(batch_size, T, h*w, x.shape[-1]).mean(dim=1)
        x_feat_dict['temporal_avg_pool'] = temporal_avg_pool_x

        x = x.view(batch_size, T, -1, x.shape[-1])[:, -1]
        x_feat_dict['last_frame'] = x

        new_x = []
        for _image_feature_source in self.image_feature_source:
            if _image_feature_source not in x_feat_dict:
                raise ValueError('invalid image feature source: {}'.format(_image_feature_source))
            new_x.append(x_feat_dict[_image_feature_source])

        x = torch.cat(new_x, dim=1)

        x = x @ self.image_projection
        x = self.image_proj_norm(x)

        return x

    def forward(self, pixel_values):
        return self._encode_image(pixel_values)


def make_model():
    return Florence2ImageEncoder().eval()


def example_inputs():
    return (torch.randn(1, 3, 128, 128),)


def other_inputs():
    return [(torch.randn(2, 3, 192, 192),), (torch.randn(3, 3, 96, 96),)]


def probe_inputs():
    return other_inputs()
