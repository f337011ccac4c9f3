"""YOLO-World (mmyolo implementation): the neck's ImagePoolingAttentionModule max-pools each of the three
image feature levels to a pool_size x pool_size grid with `nn.AdaptiveMaxPool2d((pool_size, pool_size))` and
attends text embeddings to the 27 pooled tokens; deploy/export_onnx.py fails with "Unsupported: ONNX export of
operator adaptive_max_pool2d, output size that are not factor of input size".

Source: https://github.com/AILab-CVC/YOLO-World/issues/170
"""
from typing import List

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn import Linear

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"text_features": {0: "batch", 1: "num_texts"}, "feat0": {0: "batch", 2: "h0", 3: "w0"},
           "feat1": {0: "batch", 2: "h1", 3: "w1"}, "feat2": {0: "batch", 2: "h2", 3: "w2"}}
BLIND = "operators-4"


class ConvModule(nn.Sequential):
    """mmcv ConvModule with act_cfg=None: conv + BN."""

    def __init__(self, in_channels, out_channels, kernel_size, act_cfg=None):
        super().__init__(nn.Conv2d(in_channels, out_channels, kernel_size, bias=False),
                         nn.BatchNorm2d(out_channels))


class ImagePoolingAttentionModule(nn.Module):

    def __init__(self,
                 image_channels: List[int],
                 text_channels: int,
                 embed_channels: int,
                 with_scale: bool = False,
                 num_feats: int = 3,
                 num_heads: int = 8,
                 pool_size: int = 3,
                 use_einsum: bool = True):
        super().__init__()

        self.text_channels = text_channels
        self.embed_channels = embed_channels
        self.num_heads = num_heads
        self.num_feats = num_feats
        self.head_channels = embed_channels // num_heads
        self.pool_size = pool_size
        self.use_einsum = use_einsum
        if with_scale:
            self.scale = nn.Parameter(torch.tensor([0.]), requires_grad=True)
        else:
            self.scale = 1.0
        self.projections = nn.ModuleList([
            ConvModule(in_channels, embed_channels, 1, act_cfg=None)
            for in_channels in image_channels
        ])
        self.query = nn.Sequential(nn.LayerNorm(text_channels),
                                   Linear(text_channels, embed_channels))
        self.key = nn.Sequential(nn.LayerNorm(embed_channels),
                                 Linear(embed_channels, embed_channels))
        self.value = nn.Sequential(nn.LayerNorm(embed_channels),
                                   Linear(embed_channels, embed_channels))
        self.proj = Linear(embed_channels, text_channels)

        self.image_pools = nn.ModuleList([
            nn.AdaptiveMaxPool2d((pool_size, pool_size))
            for _ in range(num_feats)
        ])

    def forward(self, text_features, image_features):
        B = image_features[0].shape[0]
        assert len(image_features) == self.num_feats
        num_patches = self.pool_size**2
        mlvl_image_features = [
            pool(proj(x)).view(B, -1, num_patches)
            for (x, proj, pool
                 ) in zip(image_features, self.projections, self.image_pools)
        ]
        mlvl_image_features = torch.cat(mlvl_image_features,
                                        dim=-1).transpose(1, 2)
        q = self.query(text_features)
        k = self.key(mlvl_image_features)
        v = self.value(mlvl_image_features)

        q = q.reshape(B, -1, self.num_heads, self.head_channels)
        k = k.reshape(B, -1, self.num_heads, self.head_channels)
        v = v.reshape(B, -1, self.num_heads, self.head_channels)
        if self.use_einsum:
            attn_weight = torch.einsum('bnmc,bkmc->bmnk', q, k)
        else:
            q = q.permute(0, 2, 1, 3)
            k = k.permute(0, 2, 3, 1)
            attn_weight = torch.matmul(q, k)

        attn_weight = attn_weight / (self.head_channels**0.5)
        attn_weight = F.softmax(attn_weight, dim=-1)
        if self.use_einsum:
            x = torch.einsum('bmnk,bkmc->bnmc', attn_weight, v)
        else:
            v = v.permute(0, 2, 1, 3)
            x = torch.matmul(attn_weight, v)
            x = x.permute(0, 2, 1, 3)
        x = self.proj(x.reshape(B, -1, self.embed_channels))
        return x * self.scale + text_features


class TextUpdate(nn.Module):
    def __init__(self):
        super().__init__()
        self.text_enhancer = ImagePoolingAttentionModule(image_channels=[32, 64, 64], text_channels=64,
                                                         embed_channels=32, with_scale=True, num_heads=8)

    def forward(self, text_features, feat0, feat1, feat2):
        return self.text_enhancer(text_features, [feat0, feat1, feat2])


def make_model():
    return TextUpdate().eval()


def example_inputs():
    return (torch.randn(1, 5, 64), torch.randn(1, 32, 40, 40), torch.randn(1, 64, 20, 20), torch.randn(1, 64, 10, 10))


def other_inputs():
    return [(torch.randn(2, 7, 64), torch.randn(2, 32, 32, 48), torch.randn(2, 64, 16, 24), torch.randn(2, 64, 8, 12)),
            (torch.randn(3, 3, 64), torch.randn(3, 32, 20, 28), torch.randn(3, 64, 10, 14), torch.randn(3, 64, 5, 7))]


def probe_inputs():
    return other_inputs()
