"""SOLIDER person re-ID (Swin backbone) exported with a dynamic batch: `window_reverse` recovers the batch as
`B = int(windows.shape[0] / (H * W / window_size / window_size))`; the thread reports that this must be
rewritten for dynamic batch and that the exported model's results otherwise differ from PyTorch.

Source: https://github.com/tinyvision/SOLIDER/issues/9
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "scalars"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "domains-5"


def window_partition(x, window_size):
    B, H, W, C = x.shape
    x = x.view(B, H // window_size, window_size, W // window_size, window_size, C)
    windows = x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, window_size, window_size, C)
    return windows


class SwinBlock(nn.Module):
    def __init__(self, dim=16, num_heads=2, window_size=4):
        super().__init__()
        self.window_size = window_size
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, num_heads, batch_first=True)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def window_reverse(self, windows, H, W):
        """
        Args:
            windows: (num_windows*B, window_size, window_size, C)
            H (int): Height of image
            W (int): Width of image
        Returns:
            x: (B, H, W, C)
        """
        window_size = self.window_size
        B = int(windows.shape[0] / (H * W / window_size / window_size))
        x = windows.view(B, H // window_size, W // window_size, window_size,
                         window_size, -1)
        x = x.permute(0, 1, 3, 2, 4, 5).contiguous().view(B, H, W, -1)
        return x

    def forward(self, x, H, W):
        B, L, C = x.shape
        shortcut = x
        x = self.norm1(x).view(B, H, W, C)
        x_windows = window_partition(x, self.window_size).view(-1, self.window_size * self.window_size, C)
        attn_windows, _ = self.attn(x_windows, x_windows, x_windows, need_weights=False)
        attn_windows = attn_windows.view(-1, self.window_size, self.window_size, C)
        x = self.window_reverse(attn_windows, H, W).view(B, H * W, C)
        x = shortcut + x
        return x + self.mlp(self.norm2(x))


class ReIDSwin(nn.Module):
    def __init__(self, dim=16, num_classes=10):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, dim, kernel_size=4, stride=4)
        self.block = SwinBlock(dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x):
        x = self.patch_embed(x)
        H, W = x.shape[2], x.shape[3]
        x = x.flatten(2).transpose(1, 2)
        x = self.block(x, H, W)
        feat = x.mean(dim=1)
        return feat, self.head(feat)


def make_model():
    return ReIDSwin().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 32),)


def other_inputs():
    return [(torch.randn(5, 3, 64, 32),), (torch.randn(1, 3, 64, 32),)]


def probe_inputs():
    return other_inputs()
