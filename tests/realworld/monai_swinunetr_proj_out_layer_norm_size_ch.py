"""MONAI SwinUNETR's Swin encoder normalises every stage output in `proj_out`, taking the channel
count from `x.size()` (`n, ch, d, h, w = x_shape; F.layer_norm(x, [ch])`); torch.onnx.export fails
with "Failed to export an ONNX attribute 'onnx::Gather', since it's not constant, please try to make
things (e.g., kernel size) static if possible" (the layer_norm shape is a traced size).
(Swin attention blocks and PatchEmbed's padding left out; einops `rearrange` written as the
permutes it performs.)

Source: https://github.com/Project-MONAI/MONAI/issues/5125
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x_in": {0: "batch"}}
BLIND = "domains-9"


def rearrange(x, pattern):
    # einops.rearrange for the four patterns used below
    perms = {
        "n c d h w -> n d h w c": (0, 2, 3, 4, 1),
        "n d h w c -> n c d h w": (0, 4, 1, 2, 3),
        "b c d h w -> b d h w c": (0, 2, 3, 4, 1),
        "b d h w c -> b c d h w": (0, 4, 1, 2, 3),
    }
    return x.permute(*perms[pattern])


class PatchEmbed(nn.Module):
    def __init__(self, patch_size=(2, 2, 2), in_chans=1, embed_dim=48):
        super().__init__()
        self.patch_size = patch_size
        self.embed_dim = embed_dim
        self.proj = nn.Conv3d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)

    def forward(self, x):
        x = self.proj(x)
        return x


class PatchMerging(nn.Module):
    def __init__(self, dim: int, norm_layer=nn.LayerNorm, spatial_dims: int = 3) -> None:
        super().__init__()
        self.dim = dim
        self.reduction = nn.Linear(8 * dim, 2 * dim, bias=False)
        self.norm = norm_layer(8 * dim)

    def forward(self, x):

        x_shape = x.size()
        if len(x_shape) == 5:
            b, d, h, w, c = x_shape
            pad_input = (h % 2 == 1) or (w % 2 == 1) or (d % 2 == 1)
            if pad_input:
                x = F.pad(x, (0, 0, 0, d % 2, 0, w % 2, 0, h % 2))
        x0 = x[:, 0::2, 0::2, 0::2, :]
        x1 = x[:, 1::2, 0::2, 0::2, :]
        x2 = x[:, 0::2, 1::2, 0::2, :]
        x3 = x[:, 0::2, 0::2, 1::2, :]
        x4 = x[:, 1::2, 0::2, 1::2, :]
        x5 = x[:, 0::2, 1::2, 0::2, :]
        x6 = x[:, 0::2, 0::2, 1::2, :]
        x7 = x[:, 1::2, 1::2, 1::2, :]
        x = torch.cat([x0, x1, x2, x3, x4, x5, x6, x7], -1)
        x = self.norm(x)
        x = self.reduction(x)
        return x


class BasicLayer(nn.Module):
    def __init__(self, dim, downsample=PatchMerging):
        super().__init__()
        self.downsample = downsample(dim=dim, norm_layer=nn.LayerNorm, spatial_dims=3)

    def forward(self, x):
        x_shape = x.size()
        b, c, d, h, w = x_shape
        x = rearrange(x, "b c d h w -> b d h w c")
        # (shifted-window attention blocks run here: `for blk in self.blocks: x = blk(x, attn_mask)`)
        x = x.view(b, d, h, w, -1)
        if self.downsample is not None:
            x = self.downsample(x)
        x = rearrange(x, "b d h w c -> b c d h w")
        return x


class SwinTransformer(nn.Module):
    def __init__(self, in_chans=1, embed_dim=12, patch_size=(2, 2, 2), num_layers=4):
        super().__init__()
        self.patch_embed = PatchEmbed(patch_size=patch_size, in_chans=in_chans, embed_dim=embed_dim)
        self.pos_drop = nn.Dropout(p=0.0)
        self.layers1 = nn.ModuleList([BasicLayer(embed_dim)])
        self.layers2 = nn.ModuleList([BasicLayer(embed_dim * 2)])
        self.layers3 = nn.ModuleList([BasicLayer(embed_dim * 4)])
        self.layers4 = nn.ModuleList([BasicLayer(embed_dim * 8)])

    def proj_out(self, x, normalize=False):
        if normalize:
            x_shape = x.size()
            if len(x_shape) == 5:
                n, ch, d, h, w = x_shape
                x = rearrange(x, "n c d h w -> n d h w c")
                x = F.layer_norm(x, [ch])
                x = rearrange(x, "n d h w c -> n c d h w")
        return x

    def forward(self, x, normalize=True):
        x0 = self.patch_embed(x)
        x0 = self.pos_drop(x0)
        x0_out = self.proj_out(x0, normalize)
        x1 = self.layers1[0](x0.contiguous())
        x1_out = self.proj_out(x1, normalize)
        x2 = self.layers2[0](x1.contiguous())
        x2_out = self.proj_out(x2, normalize)
        x3 = self.layers3[0](x2.contiguous())
        x3_out = self.proj_out(x3, normalize)
        x4 = self.layers4[0](x3.contiguous())
        x4_out = self.proj_out(x4, normalize)
        return [x0_out, x1_out, x2_out, x3_out, x4_out]


class SwinUNETREncoder(nn.Module):
    def __init__(self, in_channels=1, feature_size=12, normalize=True):
        super().__init__()
        self.normalize = normalize
        self.swinViT = SwinTransformer(in_chans=in_channels, embed_dim=feature_size)
        self.encoder10 = nn.Conv3d(16 * feature_size, 16 * feature_size, kernel_size=1)

    def forward(self, x_in):
        hidden_states_out = self.swinViT(x_in, self.normalize)
        dec4 = self.encoder10(hidden_states_out[4])
        return hidden_states_out[0], hidden_states_out[2], dec4


def make_model():
    return SwinUNETREncoder().eval()


def example_inputs():
    return (torch.randn(2, 1, 32, 32, 32),)


def other_inputs():
    return [(torch.randn(1, 1, 32, 32, 32),), (torch.randn(3, 1, 32, 32, 32),)]


def probe_inputs():
    return other_inputs()
