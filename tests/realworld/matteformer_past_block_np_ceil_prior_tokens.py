"""MatteFormer (trimap-based image matting, Swin backbone with prior tokens): BasicLayer builds the
shifted-window mask from `Hp = int(np.ceil(H / self.window_size)) * self.window_size`, window_reverse
recovers B with `int(...)`, and the prior tokens are expanded by `(H // ws) * (W // ws)` from the padded
shape; the ONNX model only runs at the export resolution, other sizes fail with reshape errors.

Source: https://github.com/webtoon/matteformer/issues/10
"""
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "numpy-from-shape"
FAMILY = "numpy_interop"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}, "trimapmask": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-28"


def window_partition(x, window_size, priors=None):
    B, H, W, C = x.shape
    x = x.view(B, H // window_size, window_size, W // window_size, window_size, C)
    if priors is not None:
        windows = x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, window_size * window_size, C)
        return_priors = list()
        for p, prior in enumerate(priors):
            prior['unknown'] = prior['unknown'].unsqueeze(1)
            prior['fg'] = prior['fg'].unsqueeze(1)
            prior['bg'] = prior['bg'].unsqueeze(1)
            return_priors.append(prior)
        return windows, return_priors
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, window_size, window_size, C)


def window_reverse(windows, window_size, H, W):
    B = int(windows.shape[0] / (H * W / window_size / window_size))
    x = windows.view(B, H // window_size, W // window_size, window_size, window_size, -1)
    x = x.permute(0, 1, 3, 2, 4, 5).contiguous().view(B, H, W, -1)
    return x


class PAWSA(nn.Module):
    def __init__(self, dim, window_size, num_heads, num_priorset=1):
        super().__init__()
        self.window_size = window_size
        self.num_heads = num_heads
        self.scale = (dim // num_heads) ** -0.5
        self.num_priorset = num_priorset
        num_patch = window_size[0] * window_size[1]
        self.relative_position_bias_table = nn.Parameter(
            torch.randn((2 * window_size[0] - 1) * (2 * window_size[1] - 1) + 3 * num_priorset, num_heads) * 0.02)
        coords = torch.stack(torch.meshgrid([torch.arange(window_size[0]), torch.arange(window_size[1])], indexing="ij"))
        coords_flatten = torch.flatten(coords, 1)
        relative_coords = (coords_flatten[:, :, None] - coords_flatten[:, None, :]).permute(1, 2, 0).contiguous()
        relative_coords[:, :, 0] += window_size[0] - 1
        relative_coords[:, :, 1] += window_size[1] - 1
        relative_coords[:, :, 0] *= 2 * window_size[1] - 1
        last_idx = 169
        index = torch.ones((num_patch, num_patch + num_priorset * 3)).long() * last_idx
        index[:num_patch, :num_patch] = relative_coords.sum(-1)
        for i in range(num_priorset):
            for j in range(3):
                index[:, num_patch + i * 3 + j:num_patch + i * 3 + j + 1] = last_idx + i * 3 + j
        self.register_buffer("relative_position_index", index)
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, x, mask=None, _inp_shape=None, prior_bins=None):
        B_, N, C = x.shape
        B, H, W, C = _inp_shape
        prior_highway = None
        for prior in prior_bins:
            uk_prior, fg_prior, bg_prior = prior['unknown'], prior['fg'], prior['bg']
            if prior_highway is None:
                prior_highway = torch.cat((uk_prior, fg_prior, bg_prior), dim=1)
            else:
                prior_highway = torch.cat((prior_highway, uk_prior, fg_prior, bg_prior), dim=1)
            uk_prior = uk_prior.expand((-1, (H // self.window_size[0]) * (W // self.window_size[1]), -1)).unsqueeze(2).contiguous().view(-1, 1, C)
            fg_prior = fg_prior.expand((-1, (H // self.window_size[0]) * (W // self.window_size[1]), -1)).unsqueeze(2).contiguous().view(-1, 1, C)
            bg_prior = bg_prior.expand((-1, (H // self.window_size[0]) * (W // self.window_size[1]), -1)).unsqueeze(2).contiguous().view(-1, 1, C)
            x = torch.cat((x, uk_prior, fg_prior, bg_prior), dim=1)
        relative_position_bias = self.relative_position_bias_table[self.relative_position_index.view(-1)] \
            .view(self.window_size[0] * self.window_size[1], self.window_size[0] * self.window_size[1] + self.num_priorset*3, -1)
        relative_position_bias = relative_position_bias.permute(2, 0, 1).contiguous()
        qkv = self.qkv(x).reshape(B_, N + self.num_priorset*3, 3, self.num_heads, C // self.num_heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        q = q[:, :, :self.window_size[0] * self.window_size[1], :] * self.scale
        attn = (q @ k.transpose(-2, -1))
        attn = attn + relative_position_bias.unsqueeze(0)
        if mask is not None:
            nW = mask.shape[0]
            mask_withPrior = F.pad(mask, (0, self.num_priorset*3, 0, 0))
            attn = attn.view(B_ // nW, nW, self.num_heads, N, N + self.num_priorset*3) + mask_withPrior.contiguous().unsqueeze(1).unsqueeze(0)
            attn = attn.view(-1, self.num_heads, N,  N + self.num_priorset*3)
        attn = self.softmax(attn)
        x = (attn @ v).transpose(1, 2).reshape(B_, N, C)
        x = self.proj(x)
        prior_highway = self.qkv(prior_highway).reshape(B, self.num_priorset*3, 3, self.num_heads, C // self.num_heads).permute(2, 0, 3, 1, 4)
        _v_hw = prior_highway[2].transpose(1, 2).reshape(B, self.num_priorset*3, C)
        return x, self.proj(_v_hw)


class PASTBlock(nn.Module):
    def __init__(self, dim, num_heads, window_size=7, shift_size=0, num_priorset=1):
        super().__init__()
        self.window_size = window_size
        self.shift_size = shift_size
        self.num_priorset = num_priorset
        self.norm1 = nn.LayerNorm(dim)
        self.attn = PAWSA(dim, (window_size, window_size), num_heads, num_priorset=num_priorset)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, dim * 4), nn.GELU(), nn.Linear(dim * 4, dim))
        self.H = None
        self.W = None

    def forward(self, x, mask_matrix, prior_memory=None, area_fg=None, area_bg=None, area_uk=None):
        B, L, C = x.shape
        H, W = self.H, self.W
        shortcut = x
        shortcut_ = shortcut.view(B, H, W, C)
        epsilon = 1e-9
        uk_prior = (area_uk * shortcut_).permute(0, 3, 1, 2).sum(axis=(-1, -2)) / (area_uk.sum(axis=(1, 2)) + epsilon)
        fg_prior = (area_fg * shortcut_).permute(0, 3, 1, 2).sum(axis=(-1, -2)) / (area_fg.sum(axis=(1, 2)) + epsilon)
        bg_prior = (area_bg * shortcut_).permute(0, 3, 1, 2).sum(axis=(-1, -2)) / (area_bg.sum(axis=(1, 2)) + epsilon)
        prior_memory.append({'fg': fg_prior, 'bg': bg_prior, 'unknown': uk_prior})
        x = self.norm1(x).view(B, H, W, C)
        prior_bins = [{k: self.norm1(v) for k, v in prior.items()} for prior in prior_memory]
        pad_l = pad_t = 0
        pad_r = (self.window_size - W % self.window_size) % self.window_size
        pad_b = (self.window_size - H % self.window_size) % self.window_size
        x = F.pad(x, (0, 0, pad_l, pad_r, pad_t, pad_b))
        _, Hp, Wp, _ = x.shape
        if self.shift_size > 0:
            shifted_x = torch.roll(x, shifts=(-self.shift_size, -self.shift_size), dims=(1, 2))
            attn_mask = mask_matrix
        else:
            shifted_x = x
            attn_mask = None
        x_windows, prior_bins = window_partition(shifted_x, self.window_size, prior_bins)
        x_windows = x_windows.view(-1, self.window_size * self.window_size, C)
        attn_windows, priors_after_attn = self.attn(x_windows, mask=attn_mask, prior_bins=prior_bins, _inp_shape=shifted_x.shape)
        attn_windows = attn_windows.view(-1, self.window_size, self.window_size, C)
        shifted_x = window_reverse(attn_windows, self.window_size, Hp, Wp)
        if self.shift_size > 0:
            x = torch.roll(shifted_x, shifts=(self.shift_size, self.shift_size), dims=(1, 2))
        else:
            x = shifted_x
        if pad_r > 0 or pad_b > 0:
            x = x[:, :H, :W, :].contiguous()
        x = shortcut + x.view(B, H * W, C)
        x = x + self.mlp(self.norm2(x))
        priors_after_attn = priors_after_attn.chunk(chunks=self.num_priorset*3, axis=1)
        prior_memory_out = list()
        for idx, prior_shortcut in enumerate(prior_memory):
            out = {}
            for j, key in enumerate(('unknown', 'fg', 'bg')):
                p = prior_shortcut[key] + priors_after_attn[idx*3+j].squeeze(1)
                out[key] = p + self.mlp(self.norm2(p))
            prior_memory_out.append(out)
        return x, prior_memory_out


class BasicLayer(nn.Module):
    def __init__(self, dim=32, depth=2, num_heads=2, window_size=7):
        super().__init__()
        self.window_size = window_size
        self.shift_size = window_size // 2
        self.blocks = nn.ModuleList([
            PASTBlock(dim, num_heads, window_size, shift_size=0 if (i % 2 == 0) else window_size // 2, num_priorset=i+1)
            for i in range(depth)])

    def forward(self, x, H, W, area_fg, area_bg, area_uk):
        Hp = int(np.ceil(H / self.window_size)) * self.window_size
        Wp = int(np.ceil(W / self.window_size)) * self.window_size
        img_mask = torch.zeros((1, Hp, Wp, 1), device=x.device)
        h_slices = (slice(0, -self.window_size), slice(-self.window_size, -self.shift_size), slice(-self.shift_size, None))
        w_slices = (slice(0, -self.window_size), slice(-self.window_size, -self.shift_size), slice(-self.shift_size, None))
        cnt = 0
        for h in h_slices:
            for w in w_slices:
                img_mask[:, h, w, :] = cnt
                cnt += 1
        mask_windows = window_partition(img_mask, self.window_size)
        mask_windows = mask_windows.view(-1, self.window_size * self.window_size)
        attn_mask = mask_windows.unsqueeze(1) - mask_windows.unsqueeze(2)
        attn_mask = attn_mask.masked_fill(attn_mask != 0, float(-100.0)).masked_fill(attn_mask == 0, float(0.0))
        prior_memory = []
        for b, blk in enumerate(self.blocks):
            blk.H, blk.W = H, W
            x, prior_memory = blk(x, attn_mask, prior_memory=prior_memory,
                                  area_fg=area_fg, area_bg=area_bg, area_uk=area_uk)
        return x, H, W


class MatteFormerStage(nn.Module):
    def __init__(self, embed_dim=32):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, embed_dim, kernel_size=4, stride=4)
        self.layer = BasicLayer(dim=embed_dim)
        self.embed_dim = embed_dim

    def forward(self, x, trimapmask):
        x = self.patch_embed(x)
        _, _, Wh, Ww = x.shape
        trimapmask = F.interpolate(trimapmask, scale_factor=1/4, mode='nearest')
        x = x.flatten(2).transpose(1, 2)
        area_fg = trimapmask[:, 0, :, :].unsqueeze(-1)
        area_bg = trimapmask[:, 2, :, :].unsqueeze(-1)
        area_uk = trimapmask[:, 1, :, :].unsqueeze(-1)
        x_out, H, W = self.layer(x, Wh, Ww, area_fg=area_fg, area_bg=area_bg, area_uk=area_uk)
        return x_out.view(-1, H, W, self.embed_dim).permute(0, 3, 1, 2).contiguous()


def _trimap(b, h, w):
    idx = torch.randint(0, 3, (b, h, w))
    return F.one_hot(idx, 3).permute(0, 3, 1, 2).float()


def make_model():
    return MatteFormerStage().eval()


def example_inputs():
    return (torch.randn(1, 3, 56, 56), _trimap(1, 56, 56))


def other_inputs():
    return [(torch.randn(2, 3, 64, 48), _trimap(2, 64, 48)), (torch.randn(1, 3, 40, 96), _trimap(1, 40, 96))]


def probe_inputs():
    return other_inputs()
