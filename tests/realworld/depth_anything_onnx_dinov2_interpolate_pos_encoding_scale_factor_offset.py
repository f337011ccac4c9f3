"""Depth-Anything-ONNX (fabio-sim) DINOv2 encoder: `interpolate_pos_encoding` returns `self.pos_embed` when
`npatch == N and w == h`, otherwise computes `w0 = w // patch_size + interpolate_offset`, calls
`F.interpolate(..., scale_factor=(sx, sy), mode="bicubic")` with float scales derived from the image size and asserts
`int(w0) == patch_pos_embed.shape[-2]`; the "feat: dynamic shapes" PR had to drop the offset, switch to `size=(w0, h0)`
and remove the asserts because height/width could not be exported as dynamic axes.

Source: https://github.com/fabio-sim/Depth-Anything-ONNX/pull/15
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch_size", 2: "height", 3: "width"}}
BLIND = "domains-44"


class PatchEmbed(nn.Module):
    def __init__(self, patch_size=14, in_chans=3, embed_dim=32):
        super().__init__()
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)
        self.norm = nn.Identity()

    def forward(self, x):
        _, _, H, W = x.shape
        x = self.proj(x)  # B C H W
        H, W = x.size(2), x.size(3)
        x = x.flatten(2).transpose(1, 2)  # B HW C
        x = self.norm(x)
        return x


class DinoVisionTransformer(nn.Module):
    def __init__(self, img_size=56, patch_size=14, embed_dim=32,
                 interpolate_antialias=False, interpolate_offset=0.1):
        super().__init__()
        self.patch_size = patch_size
        self.patch_embed = PatchEmbed(patch_size=patch_size, embed_dim=embed_dim)
        num_patches = (img_size // patch_size) ** 2
        self.cls_token = nn.Parameter(torch.randn(1, 1, embed_dim) * 0.02)
        self.pos_embed = nn.Parameter(torch.randn(1, num_patches + 1, embed_dim) * 0.02)
        self.interpolate_antialias = interpolate_antialias
        self.interpolate_offset = interpolate_offset
        self.blocks = nn.Sequential(nn.LayerNorm(embed_dim), nn.Linear(embed_dim, embed_dim), nn.GELU())
        self.norm = nn.LayerNorm(embed_dim)

    def interpolate_pos_encoding(self, x, w, h):
        previous_dtype = x.dtype
        npatch = x.shape[1] - 1
        N = self.pos_embed.shape[1] - 1
        if npatch == N and w == h:
            return self.pos_embed
        pos_embed = self.pos_embed.float()
        class_pos_embed = pos_embed[:, 0]
        patch_pos_embed = pos_embed[:, 1:]
        dim = x.shape[-1]
        w0 = w // self.patch_size
        h0 = h // self.patch_size
        # we add a small number to avoid floating point error in the interpolation
        # see discussion at https://github.com/facebookresearch/dino/issues/8
        # DINOv2 with register modify the interpolate_offset from 0.1 to 0.0
        w0, h0 = w0 + self.interpolate_offset, h0 + self.interpolate_offset
        # w0, h0 = w0 + 0.1, h0 + 0.1

        sqrt_N = N**0.5
        sx, sy = w0 / sqrt_N, h0 / sqrt_N
        patch_pos_embed = nn.functional.interpolate(
            patch_pos_embed.reshape(1, int(sqrt_N), int(sqrt_N), dim).permute(
                0, 3, 1, 2
            ),
            scale_factor=(sx, sy),
            # (int(w0), int(h0)), # to solve the upsampling shape issue
            mode="bicubic",
            antialias=self.interpolate_antialias,
        )

        assert int(w0) == patch_pos_embed.shape[-2]
        assert int(h0) == patch_pos_embed.shape[-1]
        patch_pos_embed = patch_pos_embed.permute(0, 2, 3, 1).view(1, -1, dim)
        return torch.cat((class_pos_embed.unsqueeze(0), patch_pos_embed), dim=1).to(
            previous_dtype
        )

    def prepare_tokens_with_masks(self, x, masks=None):
        B, nc, w, h = x.shape
        x = self.patch_embed(x)
        x = torch.cat((self.cls_token.expand(x.shape[0], -1, -1), x), dim=1)
        x = x + self.interpolate_pos_encoding(x, w, h)
        return x

    def forward(self, x):
        x = self.prepare_tokens_with_masks(x)
        x = x + self.blocks(x)
        return self.norm(x)


def make_model():
    return DinoVisionTransformer().eval()


def example_inputs():
    # the PR's export script traces at 140x140 so that the 518x518 shortcut branch is not taken
    return (torch.randn(1, 3, 140, 140),)


def other_inputs():
    return [(torch.randn(2, 3, 98, 126),), (torch.randn(1, 3, 70, 182),), (torch.randn(3, 3, 56, 56),)]


def probe_inputs():
    return other_inputs()
