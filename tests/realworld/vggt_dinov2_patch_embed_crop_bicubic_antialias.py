"""VGGT's aggregator builds its DINOv2 patch embed with `interpolate_antialias=True`; with images preprocessed in
"crop" mode (518 wide, non-square) `interpolate_pos_encoding` resizes the position embeddings with
`nn.functional.interpolate(..., mode="bicubic", antialias=True)` and the export stops with "Exporting the operator
'aten::_upsample_bicubic2d_aa' to ONNX opset version 17 is not supported" ("pad" mode, square, is fine).

Source: https://github.com/akretz/vggt-onnx/issues/4
"""
import math

import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"images": {0: "num_images"}}
BLIND = "operators-17"

_RESNET_MEAN = [0.485, 0.456, 0.406]
_RESNET_STD = [0.229, 0.224, 0.225]


class PatchEmbed(nn.Module):
    def __init__(self, img_size=518, patch_size=14, in_chans=3, embed_dim=32):
        super().__init__()
        self.num_patches = (img_size // patch_size) * (img_size // patch_size)
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)

    def forward(self, x):
        x = self.proj(x)  # B C H W
        return x.flatten(2).transpose(1, 2)  # B HW C


class DinoVisionTransformer(nn.Module):
    def __init__(self, img_size=518, patch_size=14, embed_dim=32, num_register_tokens=4,
                 interpolate_antialias=False, interpolate_offset=0.1):
        super().__init__()
        self.num_features = self.embed_dim = embed_dim
        self.patch_size = patch_size
        self.num_register_tokens = num_register_tokens
        self.interpolate_antialias = interpolate_antialias
        self.interpolate_offset = interpolate_offset
        self.patch_embed = PatchEmbed(img_size=img_size, patch_size=patch_size, in_chans=3, embed_dim=embed_dim)
        num_patches = self.patch_embed.num_patches
        self.cls_token = nn.Parameter(torch.randn(1, 1, embed_dim) * 1e-6)
        self.pos_embed = nn.Parameter(torch.randn(1, num_patches + 1, embed_dim) * 0.02)
        self.register_tokens = nn.Parameter(torch.randn(1, num_register_tokens, embed_dim) * 1e-6)
        self.norm = nn.LayerNorm(embed_dim, eps=1e-6)

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
        M = int(math.sqrt(N))  # Recover the number of patches in each dimension
        assert N == M * M
        kwargs = {}
        if self.interpolate_offset:
            sx = float(w0 + self.interpolate_offset) / M
            sy = float(h0 + self.interpolate_offset) / M
            kwargs["scale_factor"] = (sx, sy)
        else:
            # Simply specify an output size instead of a scale factor
            kwargs["size"] = (w0, h0)
        patch_pos_embed = nn.functional.interpolate(
            patch_pos_embed.reshape(1, M, M, dim).permute(0, 3, 1, 2),
            mode="bicubic",
            antialias=self.interpolate_antialias,
            **kwargs,
        )
        assert (w0, h0) == patch_pos_embed.shape[-2:]
        patch_pos_embed = patch_pos_embed.permute(0, 2, 3, 1).view(1, -1, dim)
        return torch.cat((class_pos_embed.unsqueeze(0), patch_pos_embed), dim=1).to(previous_dtype)

    def prepare_tokens_with_masks(self, x, masks=None):
        B, nc, w, h = x.shape
        x = self.patch_embed(x)
        x = torch.cat((self.cls_token.expand(x.shape[0], -1, -1), x), dim=1)
        x = x + self.interpolate_pos_encoding(x, w, h)
        x = torch.cat((x[:, :1], self.register_tokens.expand(x.shape[0], -1, -1), x[:, 1:]), dim=1)
        return x

    def forward(self, x):
        x = self.prepare_tokens_with_masks(x)
        x_norm = self.norm(x)
        return {"x_norm_patchtokens": x_norm[:, self.num_register_tokens + 1:]}


class Aggregator(nn.Module):
    def __init__(self, img_size=518, patch_size=14, embed_dim=32, num_register_tokens=4):
        super().__init__()
        self.__build_patch_embed__(img_size, patch_size, num_register_tokens, embed_dim=embed_dim)
        self.register_buffer("_resnet_mean", torch.FloatTensor(_RESNET_MEAN).view(1, 1, 3, 1, 1), persistent=False)
        self.register_buffer("_resnet_std", torch.FloatTensor(_RESNET_STD).view(1, 1, 3, 1, 1), persistent=False)

    def __build_patch_embed__(self, img_size, patch_size, num_register_tokens, interpolate_antialias=True,
                              interpolate_offset=0.0, embed_dim=1024):
        self.patch_embed = DinoVisionTransformer(
            img_size=img_size,
            patch_size=patch_size,
            embed_dim=embed_dim,
            num_register_tokens=num_register_tokens,
            interpolate_antialias=interpolate_antialias,
            interpolate_offset=interpolate_offset,
        )

    def forward(self, images):
        B, S, C_in, H, W = images.shape
        images = (images - self._resnet_mean) / self._resnet_std
        images = images.view(B * S, C_in, H, W)
        patch_tokens = self.patch_embed(images)
        if isinstance(patch_tokens, dict):
            patch_tokens = patch_tokens["x_norm_patchtokens"]
        _, P, C = patch_tokens.shape
        return patch_tokens.view(B, S, P, C)


class VGGT(nn.Module):
    def __init__(self):
        super().__init__()
        self.aggregator = Aggregator()

    def forward(self, images):
        # If without batch dimension, add it
        if len(images.shape) == 4:
            images = images.unsqueeze(0)
        return self.aggregator(images)


def make_model():
    return VGGT().eval()


def example_inputs():
    # load_and_preprocess_images(image_names, "crop"): width 518, height rounded to a multiple of 14
    return (torch.rand(2, 3, 392, 518),)


def other_inputs():
    return [(torch.rand(3, 3, 392, 518),), (torch.rand(1, 3, 392, 518),)]


def probe_inputs():
    return other_inputs()
