"""ruDALL-E's VQGanGumbelVAE decoder: image tokens [b, n] go through a one-hot @ codebook lookup and are laid back on
a square grid with `z.reshape(b, int(sqrt(n)), int(sqrt(n)), -1)` before the taming-transformers decoder. The ONNX
port ("add vqvae onnx") split it into `_decode(img_seq, height, width)` and exported height/width as inputs, because the
Python sqrt of the sequence length is frozen into the graph. (The taming Decoder is cut to conv_in, one nearest x2
upsample block and conv_out.)

Source: https://github.com/HighCWu/ru-dalle/commit/c0428ef5a6b86cd5f2d5cbbdad5e9a7495c87d5d
"""
from math import sqrt

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"img_seq": {0: "batch", 1: "seq_len"}}
BLIND = "domains-76"


class Decoder(nn.Module):
    """Trimmed taming.modules.diffusionmodules.model.Decoder."""

    def __init__(self, z_channels=8, ch=16, out_ch=3):
        super().__init__()
        self.conv_in = nn.Conv2d(z_channels, ch, 3, padding=1)
        self.up_conv = nn.Conv2d(ch, ch, 3, padding=1)
        self.norm_out = nn.GroupNorm(4, ch)
        self.conv_out = nn.Conv2d(ch, out_ch, 3, padding=1)

    def forward(self, z):
        h = self.conv_in(z)
        h = F.interpolate(h, scale_factor=2.0, mode="nearest")
        h = self.up_conv(h)
        h = self.norm_out(h)
        h = h * torch.sigmoid(h)
        return self.conv_out(h)


class GumbelQuantize(nn.Module):
    def __init__(self, num_hiddens, embedding_dim, n_embed):
        super().__init__()
        self.embedding_dim = embedding_dim
        self.n_embed = n_embed
        self.proj = nn.Conv2d(num_hiddens, n_embed, 1)
        self.embed = nn.Embedding(self.n_embed, self.embedding_dim)


class GumbelVQ(nn.Module):
    def __init__(self, z_channels=8, n_embed=64, embed_dim=8):
        super().__init__()
        self.decoder = Decoder(z_channels=z_channels)
        self.quantize = GumbelQuantize(z_channels, embed_dim, n_embed=n_embed)
        self.post_quant_conv = torch.nn.Conv2d(embed_dim, z_channels, 1)

    def decode(self, quant):
        quant = self.post_quant_conv(quant)
        dec = self.decoder(quant)
        return dec


class VQGanGumbelVAE(torch.nn.Module):
    def __init__(self, n_embed=64):
        super().__init__()
        self.model = GumbelVQ(n_embed=n_embed)
        self.num_tokens = n_embed

    def forward(self, img_seq):
        return self.decode(img_seq)

    def decode(self, img_seq):
        b, n = img_seq.shape
        one_hot_indices = torch.nn.functional.one_hot(img_seq, num_classes=self.num_tokens).float()
        z = (one_hot_indices @ self.model.quantize.embed.weight)
        z = z.reshape(b, int(sqrt(n)), int(sqrt(n)), -1).permute(0,3,1,2) # rearrange(z, 'b (h w) c -> b c h w', h=int(sqrt(n)))
        img = self.model.decode(z)
        img = (img.clamp(-1., 1.) + 1) * 0.5
        return img


def make_model():
    return VQGanGumbelVAE().eval()


def example_inputs():
    return (torch.randint(0, 64, (2, 16)),)          # 4x4 token grid


def other_inputs():
    return [(torch.randint(0, 64, (3, 36)),),        # 6x6
            (torch.randint(0, 64, (1, 64)),)]        # 8x8


def probe_inputs():
    return other_inputs()
