"""docTR VIPTR text recogniser: LePEAttention.windows2img recovers the batch size of the cross-shaped windows
with Python float math, `b_merged = int(img_splits_hw.shape[0] / (h * w / h_sp / w_sp))`, then views with it;
the exported ONNX model was numerically incorrect (fixed upstream by using `//` on the sizes).
Backbone reduced to a patch-embedding conv and one local VIP block.

Source: https://github.com/mindee/doctr/pull/1966
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "domains-4"


class LePEAttention(nn.Module):
    def __init__(self, dim, idx, split_size=7, dim_out=None, num_heads=8, attn_drop=0.0):
        super().__init__()
        self.dim = dim
        self.dim_out = dim_out or dim
        self.split_size = split_size
        self.num_heads = num_heads
        self.idx = idx
        head_dim = dim // num_heads
        self.scale = head_dim**-0.5

        self.get_v = nn.Conv2d(dim, dim, kernel_size=3, stride=1, padding=1, groups=dim)
        self.attn_drop = nn.Dropout(attn_drop)

    def img2windows(self, img, h_sp, w_sp):
        b, c, h, w = img.shape
        img_reshape = img.view(b, c, h // h_sp, h_sp, w // w_sp, w_sp)
        img_perm = img_reshape.permute(0, 2, 4, 3, 5, 1).reshape(-1, h_sp * w_sp, c)
        return img_perm

    def windows2img(self, img_splits_hw, h_sp, w_sp, h, w):
        b_merged = int(img_splits_hw.shape[0] / (h * w / h_sp / w_sp))
        img = img_splits_hw.view(b_merged, h // h_sp, w // w_sp, h_sp, w_sp, -1)
        img = img.permute(0, 1, 3, 2, 4, 5).contiguous().view(b_merged, h, w, -1)
        return img

    def _get_split(self, size):
        h, w = size
        if self.idx == -1:
            return h, w
        elif self.idx == 0:
            return h, self.split_size
        elif self.idx == 1:
            return self.split_size, w
        else:
            raise ValueError("idx must be -1, 0, or 1")

    def im2cswin(self, x, size):
        b, n, c = x.shape
        h, w = size
        x = x.transpose(-2, -1).view(b, c, h, w)
        h_sp, w_sp = self._get_split(size)
        x = self.img2windows(x, h_sp, w_sp)
        x = x.reshape(-1, h_sp * w_sp, self.num_heads, c // self.num_heads).permute(0, 2, 1, 3)
        return x

    def get_lepe(self, x, size):
        b, n, c = x.shape
        h, w = size
        x = x.transpose(-2, -1).view(b, c, h, w)
        h_sp, w_sp = self._get_split(size)
        x = x.view(b, c, h // h_sp, h_sp, w // w_sp, w_sp)
        x = x.permute(0, 2, 4, 1, 3, 5).reshape(-1, c, h_sp, w_sp)  # b', c, h_sp, w_sp
        lepe = self.get_v(x)
        lepe = lepe.reshape(-1, self.num_heads, c // self.num_heads, h_sp * w_sp).permute(0, 1, 3, 2)
        x = x.reshape(-1, self.num_heads, c // self.num_heads, h_sp * w_sp).permute(0, 1, 3, 2)
        return x, lepe

    def forward(self, qkv, size):
        q, k, v = qkv[0], qkv[1], qkv[2]
        h, w = size
        b, n, c = q.shape
        h_sp, w_sp = self._get_split(size)
        q = self.im2cswin(q, size)
        k = self.im2cswin(k, size)
        v, lepe = self.get_lepe(v, size)

        q = q * self.scale
        attn = q @ k.transpose(-2, -1)
        attn = nn.functional.softmax(attn, dim=-1)
        attn = self.attn_drop(attn)

        x = (attn @ v) + lepe
        x = x.transpose(1, 2).reshape(-1, h_sp * w_sp, c)
        # Window2Img
        x = self.windows2img(x, h_sp, w_sp, h, w).view(b, -1, c)
        return x


class CrossShapedWindowAttention(nn.Module):
    def __init__(self, dim, num_heads, split_size=7, mlp_ratio=4.0, qkv_bias=False):
        super().__init__()
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.norm1 = nn.LayerNorm(dim)
        self.proj = nn.Linear(dim, dim)
        self.attns = nn.ModuleList([
            LePEAttention(dim // 2, idx=i, split_size=split_size, num_heads=num_heads // 2, dim_out=dim // 2)
            for i in range(2)
        ])
        mlp_hidden_dim = int(dim * mlp_ratio)
        self.mlp = nn.Sequential(nn.Linear(dim, mlp_hidden_dim), nn.GELU(), nn.Linear(mlp_hidden_dim, dim))
        self.norm2 = nn.LayerNorm(dim)

    def forward(self, x, size):
        b, _, c = x.shape
        qkv = self.qkv(self.norm1(x)).reshape(b, -1, 3, c).permute(2, 0, 1, 3)
        x1 = self.attns[0](qkv[:, :, :, : c // 2], size)
        x2 = self.attns[1](qkv[:, :, :, c // 2 :], size)
        merged = self.proj(torch.cat([x1, x2], dim=2))
        x = x + merged
        return x + self.mlp(self.norm2(x))


class TinyVIPTR(nn.Module):
    def __init__(self, embed_dim=32, num_classes=20):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, embed_dim, kernel_size=4, stride=4)
        self.local_unit = nn.ModuleList([CrossShapedWindowAttention(embed_dim, num_heads=4, split_size=2)])
        self.head = nn.Linear(embed_dim, num_classes)

    def forward(self, x):
        x = self.patch_embed(x).permute(0, 2, 3, 1)
        b, h, w, C = x.shape
        for blk in self.local_unit:
            x = x.reshape(b, -1, C)
            x = blk(x, (h, w))
            x = x.reshape(b, h, w, -1)
        # collapse height, one prediction per column (CTC-style)
        return self.head(x.mean(dim=1))


def make_model():
    return TinyVIPTR().eval()


def example_inputs():
    return (torch.randn(2, 3, 32, 128),)


def other_inputs():
    return [(torch.randn(5, 3, 32, 128),), (torch.randn(1, 3, 32, 128),)]


def probe_inputs():
    return other_inputs()
