"""timm DaViT (v2 / Florence-2 style) channel attention scales q by the token count with
`q = q * float(N) ** -0.5`, where N comes from `x.shape`; timm's "Fix tracing by removing float cast"
commit drops the `float()` because it breaks tracing (the size becomes a Python constant).

Source: https://github.com/huggingface/pytorch-image-models/commit/c715c724e7b655319765dcfdf47ef4313b08da37
"""
import torch
from torch import nn, Tensor

CLASS = "size-branch"
FAMILY = "scalars"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-36"


class ConvPosEnc(nn.Module):
    def __init__(self, dim: int, k: int = 3):
        super().__init__()
        self.proj = nn.Conv2d(dim, dim, kernel_size=k, stride=1, padding=k // 2, groups=dim)

    def forward(self, x: Tensor):
        return x + self.proj(x)


class ChannelAttentionV2(nn.Module):

    def __init__(self, dim, num_heads=8, qkv_bias=True, dynamic_scale=True):
        super().__init__()
        self.groups = num_heads
        self.head_dim = dim // num_heads
        self.dynamic_scale = dynamic_scale

        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, N, C = x.shape

        qkv = self.qkv(x).reshape(B, N, 3, self.groups, C // self.groups).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)

        if self.dynamic_scale:
            q = q * float(N) ** -0.5
        else:
            q = q * self.head_dim ** -0.5
        attn = q.transpose(-1, -2) @ k
        attn = attn.softmax(dim=-1)
        x = (attn @ v.transpose(-1, -2)).transpose(-1, -2)

        x = x.transpose(1, 2).reshape(B, N, C)
        x = self.proj(x)
        return x


class ChannelBlock(nn.Module):
    def __init__(self, dim, num_heads):
        super().__init__()
        self.cpe1 = ConvPosEnc(dim=dim, k=3)
        self.norm1 = nn.LayerNorm(dim)
        self.attn = ChannelAttentionV2(dim, num_heads=num_heads, qkv_bias=True)
        self.cpe2 = ConvPosEnc(dim=dim, k=3)

    def forward(self, x: Tensor):
        B, C, H, W = x.shape

        x = self.cpe1(x).flatten(2).transpose(1, 2)

        cur = self.norm1(x)
        cur = self.attn(cur)
        x = x + cur

        x = self.cpe2(x.transpose(1, 2).view(B, C, H, W))
        return x


class TinyDaVit(nn.Module):
    def __init__(self, dim=32, num_heads=4, num_classes=10):
        super().__init__()
        self.stem = nn.Conv2d(3, dim, kernel_size=7, stride=4, padding=3)
        self.block = ChannelBlock(dim, num_heads)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x):
        x = self.block(self.stem(x))
        return self.head(x.mean((2, 3)))


def make_model():
    return TinyDaVit().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(3, 3, 32, 48),), (torch.randn(1, 3, 96, 40),)]


def probe_inputs():
    return other_inputs()
