"""TerraTorch encoder-decoder (Prithvi-style ViT backbone -> `ReshapeTokensToImage` neck -> conv head): the neck turns
tokens back into a feature map with `h = int(np.sqrt(tokens_per_timestep))` before the einops `rearrange`; the PR
"graph break fix" changed `np.sqrt` to `math.sqrt` because it broke the graph under `torch.compile()`.
(The ViT is one patch-embed conv, a cls token and one timm-style block; einops' rearrange is written out as
reshape/permute with the same pattern.)

Source: https://github.com/torchgeo/terratorch/pull/509
"""
import numpy as np
import torch
from torch import nn

CLASS = "numpy-from-shape"
FAMILY = "numpy_interop"
DYNAMIC = {"x": {0: "batch", 2: "size", 3: "size"}}
BLIND = "domains-35"


def rearrange_bthwe(x, batch, t, h):
    # rearrange(x, "batch (t h w) e -> batch (t e) h w", batch=batch, t=t, h=h)
    e = x.shape[-1]
    w = x.shape[1] // (t * h)
    x = x.reshape(batch, t, h, w, e)
    x = x.permute(0, 1, 4, 2, 3)
    return x.reshape(batch, t * e, h, w)


class ReshapeTokensToImage(nn.Module):
    def __init__(self, channel_list, remove_cls_token=True, effective_time_dim: int = 1):
        super().__init__()
        self.channel_list = channel_list
        self.remove_cls_token = remove_cls_token
        self.effective_time_dim = effective_time_dim

    def forward(self, features: list[torch.Tensor]) -> list[torch.Tensor]:
        out = []
        for x in features:
            if self.remove_cls_token:
                x_no_token = x[:, 1:, :]
            else:
                x_no_token = x
            number_of_tokens = x_no_token.shape[1]
            tokens_per_timestep = number_of_tokens // self.effective_time_dim
            h = int(np.sqrt(tokens_per_timestep))
            encoded = rearrange_bthwe(
                x_no_token,
                batch=x_no_token.shape[0],
                t=self.effective_time_dim,
                h=h,
            )
            out.append(encoded)
        return out


class Attention(nn.Module):  # timm
    def __init__(self, dim, num_heads=4):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.scale = self.head_dim ** -0.5
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        attn = (q * self.scale) @ k.transpose(-2, -1)
        attn = attn.softmax(dim=-1)
        x = (attn @ v).transpose(1, 2).reshape(B, N, C)
        return self.proj(x)


class Block(nn.Module):  # timm
    def __init__(self, dim, num_heads=4, mlp_ratio=2.0):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, num_heads=num_heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, int(dim * mlp_ratio)), nn.GELU(), nn.Linear(int(dim * mlp_ratio), dim))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        x = x + self.mlp(self.norm2(x))
        return x


class TinyPrithviViT(nn.Module):
    def __init__(self, in_chans=6, patch_size=4, embed_dim=32):
        super().__init__()
        self.patch_embed = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)
        self.cls_token = nn.Parameter(torch.randn(1, 1, embed_dim) * 0.02)
        self.block = Block(embed_dim, num_heads=4)

    def forward(self, x):
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        cls_tokens = self.cls_token.expand(x.shape[0], -1, -1)
        x = torch.cat((cls_tokens, x), dim=1)
        return [self.block(x)]


class EncoderDecoderModel(nn.Module):
    def __init__(self, num_classes=3, embed_dim=32):
        super().__init__()
        self.encoder = TinyPrithviViT(embed_dim=embed_dim)
        self.neck = ReshapeTokensToImage([embed_dim])
        self.head = nn.Sequential(nn.Conv2d(embed_dim, 16, 3, padding=1), nn.ReLU(),
                                  nn.Upsample(scale_factor=4), nn.Conv2d(16, num_classes, 1))

    def forward(self, x):
        features = self.encoder(x)
        features = self.neck(features)
        return self.head(features[-1])


def make_model():
    return EncoderDecoderModel().eval()


def example_inputs():
    return (torch.randn(2, 6, 32, 32),)


def other_inputs():
    return [(torch.randn(3, 6, 48, 48),), (torch.randn(1, 6, 24, 24),)]


def probe_inputs():
    return other_inputs()
