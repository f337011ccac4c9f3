"""DAT super-resolution (as loaded by spandrel/chaiNNer): the shifted Adaptive_Spatial_Attention block pads H/W to the
split size with Python `%` math, rebuilds the shift-window masks with `calculate_mask(_H, _W)` (Python loops over
slices) when the size differs from training, and Spatial_Attention merges windows with
`B = int(img_splits_hw.shape[0] / (H * W / H_sp / W_sp))`; the ONNX model converted in chaiNNer failed in
onnxruntime on tiles of another size ("/layers.0/blocks.2/attn/attns.0/MatMul ... cannot broadcast").
Reduced to one shifted block (position bias off) between a conv head and a pixel-shuffle tail.

Source: https://github.com/chaiNNer-org/chaiNNer/issues/2715
"""
import torch
import torch.nn as nn
from torch.nn import functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {2: "height", 3: "width"}}
BLIND = "domains-4"


def img2windows(img, H_sp, W_sp):
    B, C, H, W = img.shape
    img_reshape = img.view(B, C, H // H_sp, H_sp, W // W_sp, W_sp)
    img_perm = img_reshape.permute(0, 2, 4, 3, 5, 1).contiguous().reshape(-1, H_sp * W_sp, C)
    return img_perm


def windows2img(img_splits_hw, H_sp, W_sp, H, W):
    B = int(img_splits_hw.shape[0] / (H * W / H_sp / W_sp))
    img = img_splits_hw.view(B, H // H_sp, W // W_sp, H_sp, W_sp, -1)
    img = img.permute(0, 1, 3, 2, 4, 5).contiguous().view(B, H, W, -1)
    return img


class Spatial_Attention(nn.Module):
    def __init__(self, dim, idx, split_size=[8, 8], num_heads=6):
        super().__init__()
        self.num_heads = num_heads
        self.scale = (dim // num_heads) ** -0.5
        if idx == 0:
            H_sp, W_sp = split_size[0], split_size[1]
        else:
            W_sp, H_sp = split_size[0], split_size[1]
        self.H_sp = H_sp
        self.W_sp = W_sp

    def im2win(self, x, H, W):
        B, _N, C = x.shape
        x = x.transpose(-2, -1).contiguous().view(B, C, H, W)
        x = img2windows(x, self.H_sp, self.W_sp)
        x = x.reshape(-1, self.H_sp * self.W_sp, self.num_heads, C // self.num_heads).permute(0, 2, 1, 3).contiguous()
        return x

    def forward(self, qkv, H, W, mask=None):
        q, k, v = qkv[0], qkv[1], qkv[2]
        B, L, C = q.shape
        assert L == H * W, "flatten img_tokens has wrong size"
        q = self.im2win(q, H, W)
        k = self.im2win(k, H, W)
        v = self.im2win(v, H, W)
        q = q * self.scale
        attn = q @ k.transpose(-2, -1)
        N = attn.shape[3]
        if mask is not None:
            nW = mask.shape[0]
            attn = attn.view(B, nW, self.num_heads, N, N) + mask.unsqueeze(1).unsqueeze(0)
            attn = attn.view(-1, self.num_heads, N, N)
        attn = nn.functional.softmax(attn, dim=-1, dtype=attn.dtype)
        x = attn @ v
        x = x.transpose(1, 2).reshape(-1, self.H_sp * self.W_sp, C)
        x = windows2img(x, self.H_sp, self.W_sp, H, W)
        return x


class Adaptive_Spatial_Attention(nn.Module):
    def __init__(self, dim, num_heads, reso=64, split_size=[8, 8], shift_size=[1, 2], rg_idx=0, b_idx=2):
        super().__init__()
        self.split_size = split_size
        self.shift_size = shift_size
        self.b_idx = b_idx
        self.rg_idx = rg_idx
        self.patches_resolution = reso
        self.qkv = nn.Linear(dim, dim * 3, bias=False)
        self.proj = nn.Linear(dim, dim)
        self.attns = nn.ModuleList([
            Spatial_Attention(dim // 2, idx=i, split_size=split_size, num_heads=num_heads // 2) for i in range(2)
        ])
        attn_mask = self.calculate_mask(self.patches_resolution, self.patches_resolution)
        self.register_buffer("attn_mask_0", attn_mask[0])
        self.register_buffer("attn_mask_1", attn_mask[1])

    def calculate_mask(self, H, W, dtype=None):
        img_mask_0 = torch.zeros((1, H, W, 1), dtype=dtype)  # 1 H W 1 idx=0
        img_mask_1 = torch.zeros((1, H, W, 1), dtype=dtype)  # 1 H W 1 idx=1
        h_slices_0 = (slice(0, -self.split_size[0]), slice(-self.split_size[0], -self.shift_size[0]),
                      slice(-self.shift_size[0], None))
        w_slices_0 = (slice(0, -self.split_size[1]), slice(-self.split_size[1], -self.shift_size[1]),
                      slice(-self.shift_size[1], None))
        h_slices_1 = (slice(0, -self.split_size[1]), slice(-self.split_size[1], -self.shift_size[1]),
                      slice(-self.shift_size[1], None))
        w_slices_1 = (slice(0, -self.split_size[0]), slice(-self.split_size[0], -self.shift_size[0]),
                      slice(-self.shift_size[0], None))
        cnt = 0
        for h in h_slices_0:
            for w in w_slices_0:
                img_mask_0[:, h, w, :] = cnt
                cnt += 1
        cnt = 0
        for h in h_slices_1:
            for w in w_slices_1:
                img_mask_1[:, h, w, :] = cnt
                cnt += 1

        img_mask_0 = img_mask_0.view(1, H // self.split_size[0], self.split_size[0], W // self.split_size[1], self.split_size[1], 1)
        img_mask_0 = img_mask_0.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, self.split_size[0], self.split_size[1], 1)
        mask_windows_0 = img_mask_0.view(-1, self.split_size[0] * self.split_size[1])
        attn_mask_0 = mask_windows_0.unsqueeze(1) - mask_windows_0.unsqueeze(2)
        attn_mask_0 = attn_mask_0.masked_fill(attn_mask_0 != 0, -100.0).masked_fill(attn_mask_0 == 0, 0.0)

        img_mask_1 = img_mask_1.view(1, H // self.split_size[1], self.split_size[1], W // self.split_size[0], self.split_size[0], 1)
        img_mask_1 = img_mask_1.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, self.split_size[1], self.split_size[0], 1)
        mask_windows_1 = img_mask_1.view(-1, self.split_size[1] * self.split_size[0])
        attn_mask_1 = mask_windows_1.unsqueeze(1) - mask_windows_1.unsqueeze(2)
        attn_mask_1 = attn_mask_1.masked_fill(attn_mask_1 != 0, -100.0).masked_fill(attn_mask_1 == 0, 0.0)
        return attn_mask_0, attn_mask_1

    def forward(self, x, H, W):
        B, L, C = x.shape
        assert L == H * W, "flatten img_tokens has wrong size"
        qkv = self.qkv(x).reshape(B, -1, 3, C).permute(2, 0, 1, 3)  # 3, B, HW, C

        # image padding
        max_split_size = max(self.split_size[0], self.split_size[1])
        pad_l = pad_t = 0
        pad_r = (max_split_size - W % max_split_size) % max_split_size
        pad_b = (max_split_size - H % max_split_size) % max_split_size

        qkv = qkv.reshape(3 * B, H, W, C).permute(0, 3, 1, 2)  # 3B C H W
        qkv = F.pad(qkv, (pad_l, pad_r, pad_t, pad_b)).reshape(3, B, C, -1).transpose(-2, -1)  # l r t b
        _H = pad_b + H
        _W = pad_r + W
        _L = _H * _W

        qkv = qkv.view(3, B, _H, _W, C)
        qkv_0 = torch.roll(qkv[:, :, :, :, : C // 2], shifts=(-self.shift_size[0], -self.shift_size[1]), dims=(2, 3))
        qkv_0 = qkv_0.view(3, B, _L, C // 2)
        qkv_1 = torch.roll(qkv[:, :, :, :, C // 2 :], shifts=(-self.shift_size[1], -self.shift_size[0]), dims=(2, 3))
        qkv_1 = qkv_1.view(3, B, _L, C // 2)

        if self.patches_resolution != _H or self.patches_resolution != _W:
            mask_tmp = self.calculate_mask(_H, _W, dtype=x.dtype)
            x1_shift = self.attns[0](qkv_0, _H, _W, mask=mask_tmp[0].to(x.device))
            x2_shift = self.attns[1](qkv_1, _H, _W, mask=mask_tmp[1].to(x.device))
        else:
            x1_shift = self.attns[0](qkv_0, _H, _W, mask=self.attn_mask_0)
            x2_shift = self.attns[1](qkv_1, _H, _W, mask=self.attn_mask_1)

        x1 = torch.roll(x1_shift, shifts=(self.shift_size[0], self.shift_size[1]), dims=(1, 2))
        x2 = torch.roll(x2_shift, shifts=(self.shift_size[1], self.shift_size[0]), dims=(1, 2))
        x1 = x1[:, :H, :W, :].reshape(B, L, C // 2)
        x2 = x2[:, :H, :W, :].reshape(B, L, C // 2)
        return self.proj(torch.cat([x1, x2], dim=2))


class TinyDAT(nn.Module):
    def __init__(self, embed_dim=16, upscale=2):
        super().__init__()
        self.conv_first = nn.Conv2d(3, embed_dim, 3, 1, 1)
        self.attn = Adaptive_Spatial_Attention(embed_dim, num_heads=4, reso=16, split_size=[4, 8], shift_size=[1, 2])
        self.norm = nn.LayerNorm(embed_dim)
        self.upsample = nn.Sequential(nn.Conv2d(embed_dim, 3 * upscale**2, 3, 1, 1), nn.PixelShuffle(upscale))

    def forward(self, x):
        x = self.conv_first(x)
        B, C, H, W = x.shape
        t = x.flatten(2).transpose(1, 2)
        t = t + self.attn(self.norm(t), H, W)
        x = t.transpose(1, 2).reshape(B, C, H, W)
        return self.upsample(x)


def make_model():
    return TinyDAT().eval()


def example_inputs():
    return (torch.rand(1, 3, 16, 16),)


def other_inputs():
    return [(torch.rand(1, 3, 24, 40),), (torch.rand(1, 3, 20, 18),)]


def probe_inputs():
    return other_inputs()
