"""MONAI SwinUNETR (3D medical segmentation): tracing/exporting the model prints TracerWarnings
"Converting a tensor to a Python boolean" on `PatchEmbed.forward`'s padding branches
`if w % self.patch_size[2] != 0:` / `if h % ...` / `if d % ...`; the pad-to-patch-multiple decision
is frozen at the traced volume size (the report asks how to get a deployable TorchScript/ONNX model).
(SwinUNETR trimmed to the swinViT stem: PatchEmbed + proj_out; einops `rearrange` written as permutes.)

Source: https://github.com/Project-MONAI/MONAI/issues/6823
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x_in": {0: "batch", 2: "depth", 3: "height", 4: "width"}}
BLIND = "domains-71"


def ensure_tuple_rep(tup, dim):
    if isinstance(tup, int):
        return (tup,) * dim
    return tuple(tup)


class PatchEmbed(nn.Module):
    def __init__(self, patch_size=2, in_chans=1, embed_dim=48, norm_layer=nn.LayerNorm, spatial_dims=3):
        super().__init__()
        patch_size = ensure_tuple_rep(patch_size, spatial_dims)
        self.patch_size = patch_size
        self.embed_dim = embed_dim
        self.proj = nn.Conv3d(in_channels=in_chans, out_channels=embed_dim, kernel_size=patch_size, stride=patch_size)
        if norm_layer is not None:
            self.norm = norm_layer(embed_dim)
        else:
            self.norm = None

    def forward(self, x):
        x_shape = x.size()
        if len(x_shape) == 5:
            _, _, d, h, w = x_shape
            if w % self.patch_size[2] != 0:
                x = F.pad(x, (0, self.patch_size[2] - w % self.patch_size[2]))
            if h % self.patch_size[1] != 0:
                x = F.pad(x, (0, 0, 0, self.patch_size[1] - h % self.patch_size[1]))
            if d % self.patch_size[0] != 0:
                x = F.pad(x, (0, 0, 0, 0, 0, self.patch_size[0] - d % self.patch_size[0]))

        elif len(x_shape) == 4:
            _, _, h, w = x_shape
            if w % self.patch_size[1] != 0:
                x = F.pad(x, (0, self.patch_size[1] - w % self.patch_size[1]))
            if h % self.patch_size[0] != 0:
                x = F.pad(x, (0, 0, 0, self.patch_size[0] - h % self.patch_size[0]))

        x = self.proj(x)
        if self.norm is not None:
            x_shape = x.size()
            x = x.flatten(2).transpose(1, 2)
            x = self.norm(x)
            if len(x_shape) == 5:
                d, wh, ww = x_shape[2], x_shape[3], x_shape[4]
                x = x.transpose(1, 2).view(-1, self.embed_dim, d, wh, ww)
            elif len(x_shape) == 4:
                wh, ww = x_shape[2], x_shape[3]
                x = x.transpose(1, 2).view(-1, self.embed_dim, wh, ww)
        return x


class SwinViTStem(nn.Module):
    def __init__(self, in_chans=1, embed_dim=12, patch_size=(2, 2, 2), out_channels=3):
        super().__init__()
        self.patch_embed = PatchEmbed(patch_size=patch_size, in_chans=in_chans, embed_dim=embed_dim, norm_layer=None)
        self.pos_drop = nn.Dropout(p=0.0)
        self.out = nn.Conv3d(embed_dim, out_channels, kernel_size=1)

    def proj_out(self, x, normalize=False):
        if normalize:
            x_shape = x.size()
            ch = int(x_shape[1])
            x = x.permute(0, 2, 3, 4, 1)  # rearrange(x, "n c d h w -> n d h w c")
            x = F.layer_norm(x, [ch])
            x = x.permute(0, 4, 1, 2, 3)  # rearrange(x, "n d h w c -> n c d h w")
        return x

    def forward(self, x_in, normalize=True):
        x0 = self.patch_embed(x_in)
        x0 = self.pos_drop(x0)
        x0_out = self.proj_out(x0, normalize)
        return self.out(x0_out)


def make_model():
    return SwinViTStem().eval()


def example_inputs():
    return (torch.randn(2, 1, 16, 16, 16),)


def other_inputs():
    return [(torch.randn(3, 1, 15, 20, 13),), (torch.randn(1, 1, 24, 17, 18),)]


def probe_inputs():
    return other_inputs()
