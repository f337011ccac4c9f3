"""DiQP (video restoration of compressed frames, Uformer-style 3D transformer): every block recovers the spatial grid
from the token count with `H = int(math.sqrt(L))` / `hh = int(math.sqrt(hw))` (and `window_reverse` recovers B with
`int(...)`) before reshaping back to `b c f h w`; the reporter's ONNX conversion gave a "dynamic" model that only ran
at the 512x512 export crop, other sizes needing tiling, although they tried to make model.py fully dynamic.
(einops `rearrange` calls are written out as the equivalent permute/reshape.)

Source: https://github.com/alimd94/DiQP/issues/2
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 3: "height", 4: "width"}}
BLIND = "domains-21"


def window_partition(x, win_size, dilation_rate=1):
    B, H, W, CFn = x.shape
    x = x.view(B, H // win_size, win_size, W // win_size, win_size, CFn)
    windows = x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, win_size, win_size, CFn)
    return windows


def window_reverse(windows, win_size, H, W, dilation_rate=1):
    B = int(windows.shape[0] / (H * W / win_size / win_size))
    x = windows.view(B, H // win_size, W // win_size, win_size, win_size, -1)
    x = x.permute(0, 1, 3, 2, 4, 5).contiguous().view(B, H, W, -1)
    return x


class WindowAttention(nn.Module):
    def __init__(self, dim, win_size, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.scale = (dim // num_heads) ** -0.5
        self.to_q = nn.Linear(dim, dim)
        self.to_kv = nn.Linear(dim, dim * 2)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B_, N, C = x.shape
        q = self.to_q(x).reshape(B_, N, 1, self.num_heads, C // self.num_heads).permute(2, 0, 3, 1, 4)[0]
        kv = self.to_kv(x).reshape(B_, N, 2, self.num_heads, C // self.num_heads).permute(2, 0, 3, 1, 4)
        k, v = kv[0], kv[1]
        attn = ((q * self.scale) @ k.transpose(-2, -1)).softmax(dim=-1)
        return self.proj((attn @ v).transpose(1, 2).reshape(B_, N, C))


class STeFF(nn.Module):
    def __init__(self, dim=24, hidden_dim=48, frameNos=3):
        super().__init__()
        self.linear1 = nn.Sequential(nn.Linear(dim, hidden_dim), nn.GELU())
        self.dwconv = nn.Sequential(nn.Conv3d(hidden_dim // frameNos, hidden_dim // frameNos, groups=hidden_dim // frameNos,
                                              kernel_size=3, stride=1, padding=1), nn.GELU())
        self.linear2 = nn.Sequential(nn.Linear(hidden_dim, dim))
        self.frameNos = frameNos
        self.hidden_dim = hidden_dim

    def forward(self, x):
        bs, hw, cfn = x.size()
        hh = int(math.sqrt(hw))
        x = self.linear1(x)
        # rearrange(x, ' b (h w) (c f) -> b c f h w ', h=hh, w=hh, c=self.hidden_dim//self.frameNos, f=self.frameNos)
        x = x.view(bs, hh, hh, self.hidden_dim // self.frameNos, self.frameNos).permute(0, 3, 4, 1, 2)
        x = self.dwconv(x)
        # rearrange(x, ' b c f h w -> b (h w) (c f)')
        x = x.permute(0, 3, 4, 1, 2).reshape(bs, hh * hh, -1)
        return self.linear2(x)


class TransformerBlock(nn.Module):
    def __init__(self, dim, num_heads, win_size=4):
        super().__init__()
        self.win_size = win_size
        self.norm1 = nn.LayerNorm(dim)
        self.attn = WindowAttention(dim, win_size, num_heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = STeFF(dim, dim * 2)

    def forward(self, x, mask=None):
        B, L, CFn = x.shape
        H = int(math.sqrt(L))
        W = int(math.sqrt(L))
        shortcut = x
        x = self.norm1(x).view(B, H, W, CFn)
        x_windows = window_partition(x, self.win_size).view(-1, self.win_size * self.win_size, CFn)
        attn_windows = self.attn(x_windows).view(-1, self.win_size, self.win_size, CFn)
        x = window_reverse(attn_windows, self.win_size, H, W).view(B, H * W, CFn)
        x = shortcut + x
        return x + self.mlp(self.norm2(x))


class Downsample(nn.Module):
    def __init__(self, in_channel, out_channel, frameNos=3):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv3d(in_channel // frameNos, out_channel // frameNos, kernel_size=(3, 4, 4), stride=(1, 2, 2), padding=1))
        self.frameNos = frameNos

    def forward(self, x):
        B, L, Cfn = x.shape
        C = Cfn // self.frameNos
        H = int(math.sqrt(L))
        W = int(math.sqrt(L))
        x = x.view(B, H, W, C, self.frameNos).permute(0, 3, 4, 1, 2)   # 'b (h w) (c f) -> b c f h w'
        x = self.conv(x)
        return x.permute(0, 3, 4, 1, 2).reshape(B, -1, x.shape[1] * x.shape[2])   # 'b c f h w -> b (h w) (c f)'


class Upsample(nn.Module):
    def __init__(self, in_channel, out_channel, frameNos=3):
        super().__init__()
        self.deconv = nn.Sequential(
            nn.ConvTranspose3d(in_channel // frameNos, out_channel // frameNos, kernel_size=2, stride=(1, 2, 2)),
            nn.Conv3d(out_channel // frameNos, out_channel // frameNos, kernel_size=(2, 1, 1), stride=1, padding=0))
        self.frameNos = frameNos

    def forward(self, x):
        B, L, Cfn = x.shape
        C = Cfn // self.frameNos
        H = int(math.sqrt(L))
        W = int(math.sqrt(L))
        x = x.view(B, H, W, C, self.frameNos).permute(0, 3, 4, 1, 2)
        x = self.deconv(x)
        return x.permute(0, 3, 4, 1, 2).reshape(B, -1, x.shape[1] * x.shape[2])


class DiQP(nn.Module):
    def __init__(self, embed_dim=8, inputFrames=3, win_size=4):
        super().__init__()
        dim = embed_dim * inputFrames
        self.input_proj = nn.Sequential(nn.Conv3d(3, embed_dim, kernel_size=3, padding=1), nn.LeakyReLU(inplace=True))
        self.encoderlayer_0 = TransformerBlock(dim, 1, win_size)
        self.dowsample_0 = Downsample(dim, dim * 2)
        self.bottleneck = TransformerBlock(dim * 2, 2, win_size)
        self.upsample_0 = Upsample(dim * 2, dim)
        self.decoderlayer_0 = TransformerBlock(dim * 2, 2, win_size)
        self.output_proj = nn.Conv3d(2 * embed_dim, 3, kernel_size=3, padding=1)
        self.inputFrames = inputFrames

    def forward(self, x):
        B, C, Fn, H, W = x.shape
        y = self.input_proj(x)
        y = y.permute(0, 3, 4, 1, 2).reshape(B, H * W, -1)   # 'b c f h w -> b (h w) (c f)'
        conv0 = self.encoderlayer_0(y)
        pool0 = self.dowsample_0(conv0)
        conv1 = self.bottleneck(pool0)
        up0 = self.upsample_0(conv1)
        deconv0 = self.decoderlayer_0(torch.cat([up0, conv0], -1))
        # OutputProj: 'b (h w) (c f) -> b c f h w' with H = W = int(math.sqrt(L))
        B_, L, Cfn = deconv0.shape
        Hs = int(math.sqrt(L))
        out = deconv0.view(B_, Hs, Hs, Cfn // self.inputFrames, self.inputFrames).permute(0, 3, 4, 1, 2)
        return self.output_proj(out) + x


def make_model():
    return DiQP().eval()


def example_inputs():
    return (torch.randn(1, 3, 3, 32, 32),)


def other_inputs():
    return [(torch.randn(2, 3, 3, 48, 48),), (torch.randn(1, 3, 3, 16, 16),)]


def probe_inputs():
    return other_inputs()
