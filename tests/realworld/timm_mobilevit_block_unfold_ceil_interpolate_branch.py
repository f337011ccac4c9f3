"""timm MobileViT (mobilevit_s): MobileVitBlock unfolds the feature map into 2x2 patches after computing
`new_h, new_w = math.ceil(H / patch_h) * patch_h, ...` in Python and only calls `F.interpolate(x, size=(new_h, new_w))`
`if new_h != H or new_w != W`, interpolating back to (H, W) after folding; the exported graph keeps the export-size
resize (TensorRT then rejects its Upsample, "the scales input must be an initializer") and other sizes break.

Source: https://github.com/huggingface/pytorch-image-models/issues/1373
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-41"


def conv_norm_act(in_chs, out_chs, kernel_size=3, stride=1):
    return nn.Sequential(
        nn.Conv2d(in_chs, out_chs, kernel_size, stride, kernel_size // 2, bias=False),
        nn.BatchNorm2d(out_chs), nn.SiLU())


class TransformerBlock(nn.Module):
    def __init__(self, dim, num_heads=4, mlp_ratio=2.0):
        super().__init__()
        self.num_heads = num_heads
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, int(dim * mlp_ratio)), nn.SiLU(), nn.Linear(int(dim * mlp_ratio), dim))

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(self.norm1(x)).reshape(B, N, 3, self.num_heads, C // self.num_heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        attn = (q @ k.transpose(-2, -1)) * (C // self.num_heads) ** -0.5
        x = x + self.proj((attn.softmax(dim=-1) @ v).transpose(1, 2).reshape(B, N, C))
        return x + self.mlp(self.norm2(x))


class MobileVitBlock(nn.Module):
    def __init__(self, in_chs, out_chs, stride=1, transformer_dim=32, transformer_depth=2, patch_size=2):
        super(MobileVitBlock, self).__init__()
        self.conv_kxk = conv_norm_act(in_chs, in_chs, kernel_size=3, stride=stride)
        self.conv_1x1 = nn.Conv2d(in_chs, transformer_dim, kernel_size=1, bias=False)
        self.transformer = nn.Sequential(*[TransformerBlock(transformer_dim) for _ in range(transformer_depth)])
        self.norm = nn.LayerNorm(transformer_dim)
        self.conv_proj = conv_norm_act(transformer_dim, out_chs, kernel_size=1, stride=1)
        self.patch_size = (patch_size, patch_size)
        self.patch_area = self.patch_size[0] * self.patch_size[1]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Local representation
        x = self.conv_kxk(x)
        x = self.conv_1x1(x)

        # Unfold (feature map -> patches)
        patch_h, patch_w = self.patch_size
        B, C, H, W = x.shape
        new_h, new_w = math.ceil(H / patch_h) * patch_h, math.ceil(W / patch_w) * patch_w
        num_patch_h, num_patch_w = new_h // patch_h, new_w // patch_w  # n_h, n_w
        num_patches = num_patch_h * num_patch_w  # N
        interpolate = False
        if new_h != H or new_w != W:
            # Note: Padding can be done, but then it needs to be handled in attention function.
            x = F.interpolate(x, size=(new_h, new_w), mode="bilinear", align_corners=False)
            interpolate = True

        # [B, C, H, W] --> [B * C * n_h, n_w, p_h, p_w]
        x = x.reshape(B * C * num_patch_h, patch_h, num_patch_w, patch_w).transpose(1, 2)
        # [B * C * n_h, n_w, p_h, p_w] --> [BP, N, C] where P = p_h * p_w and N = n_h * n_w
        x = x.reshape(B, C, num_patches, self.patch_area).transpose(1, 3).reshape(B * self.patch_area, num_patches, -1)

        # Global representations
        x = self.transformer(x)
        x = self.norm(x)

        # Fold (patch -> feature map)
        x = x.contiguous().view(B, self.patch_area, num_patches, -1)
        x = x.transpose(1, 3).reshape(B * C * num_patch_h, num_patch_w, patch_h, patch_w)
        x = x.transpose(1, 2).reshape(B, C, num_patch_h * patch_h, num_patch_w * patch_w)
        if interpolate:
            x = F.interpolate(x, size=(H, W), mode="bilinear", align_corners=False)

        return self.conv_proj(x)


class TinyMobileViT(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.stem = conv_norm_act(3, 16, 3, 2)
        self.stage1 = conv_norm_act(16, 24, 3, 2)
        self.stage2 = MobileVitBlock(24, 32, stride=2, transformer_dim=32, transformer_depth=1)
        self.head = nn.Linear(32, num_classes)

    def forward(self, x):
        x = self.stage2(self.stage1(self.stem(x)))
        return self.head(x.mean((2, 3)))


def make_model():
    return TinyMobileViT().eval()


def example_inputs():
    return (torch.randn(2, 3, 56, 56),)   # 7x7 map in the MobileViT block: the resize path runs


def other_inputs():
    return [(torch.randn(3, 3, 64, 72),), (torch.randn(1, 3, 72, 40),)]


def probe_inputs():
    return other_inputs()
