"""FasterViT exported to ONNX with a dynamic batch (onnx_convert.py): `window_reverse` recovers the
batch size as a Python int, `B = int(windows.shape[0] / (H * W / window_size / window_size))`, so the
batch of the export input is baked into the reshape after the window attention blocks (an input of shape
[5,3,224,224] gives B = 5 in the graph).

Source: https://github.com/NVlabs/FasterViT/issues/12
"""
import torch
import torch.nn as nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "domains-6"


def window_partition(x, window_size):
    B, C, H, W = x.shape
    x = x.view(B, C, H // window_size, window_size, W // window_size, window_size)
    windows = x.permute(0, 2, 4, 3, 5, 1).reshape(-1, window_size*window_size, C)
    return windows


def window_reverse(windows, window_size, H, W):
    B = int(windows.shape[0] / (H * W / window_size / window_size))
    x = windows.view(B, H // window_size, W // window_size, window_size, window_size, -1)
    x = x.permute(0, 5, 1, 3, 2, 4).reshape(B, windows.shape[2], H, W)
    return x


class WindowAttention(nn.Module):
    def __init__(self, dim, num_heads=2):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.scale = self.head_dim ** -0.5
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, -1, 3, self.num_heads, C // self.num_heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = (q @ k.transpose(-2, -1)) * self.scale
        attn = attn.softmax(dim=-1)
        x = (attn @ v).transpose(1, 2).reshape(B, -1, C)
        return self.proj(x)


class HAT(nn.Module):
    def __init__(self, dim, num_heads=2, mlp_ratio=2.):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = WindowAttention(dim, num_heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, int(dim * mlp_ratio)), nn.GELU(), nn.Linear(int(dim * mlp_ratio), dim))

    def forward(self, x, carrier_tokens):
        x = x + self.attn(self.norm1(x))
        x = x + self.mlp(self.norm2(x))
        return x, carrier_tokens


class FasterViTLayer(nn.Module):
    def __init__(self, dim, depth=2, window_size=7, downsample=True):
        super().__init__()
        self.window_size = window_size
        self.do_gt = False
        self.blocks = nn.ModuleList([HAT(dim) for _ in range(depth)])
        self.downsample = nn.Conv2d(dim, dim * 2, 3, 2, 1) if downsample else None

    def forward(self, x):
        B, C, H, W = x.shape
        ct = None
        x = window_partition(x, self.window_size)
        for bn, blk in enumerate(self.blocks):
            x, ct = blk(x, ct)
        x = window_reverse(x, self.window_size, H, W)
        if self.downsample is None:
            return x
        return self.downsample(x)


class FasterViT(nn.Module):
    def __init__(self, dim=16, num_classes=10):
        super().__init__()
        self.patch_embed = nn.Sequential(nn.Conv2d(3, dim, 3, 2, 1), nn.ReLU(), nn.Conv2d(dim, dim, 3, 2, 1))
        self.levels = nn.ModuleList([FasterViTLayer(dim), FasterViTLayer(dim * 2, downsample=False)])
        self.head = nn.Linear(dim * 2, num_classes)

    def forward(self, x):
        x = self.patch_embed(x)
        for level in self.levels:
            x = level(x)
        return self.head(x.mean((2, 3)))


def make_model():
    return FasterViT().eval()


def example_inputs():
    return (torch.randn(5, 3, 56, 56),)


def other_inputs():
    return [(torch.randn(2, 3, 56, 56),), (torch.randn(7, 3, 56, 56),)]


def probe_inputs():
    return other_inputs()
