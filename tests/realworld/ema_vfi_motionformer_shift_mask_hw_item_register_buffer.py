"""EMA-VFI (video frame interpolation) MotionFormerBlock: window attention over center-padded features
(pad size from math.ceil on H/W), a shifted-window mask cached in forward via register_buffer and reused
when `self.HW.item() == H_p * W_p`, and a coordinate grid cached in a dict keyed by the shape. The report
says export "succeeds" but the ONNX model fails at any H/W other than the export size (TracerWarnings on
math.ceil / `if pad_h > 0` / int(...) / `self.HW.item()`; dynamo warns the cor cache is assigned during export).

Source: https://github.com/Lighter01/video_interpolation_arch/blob/806bc260dae92c4745d8f679c23328132baad4fa/.agent/stage_plans/02_5_inference_runtime_stabilization_stage_plan.md
"""
import math

import torch
from torch import nn

CLASS = "state"
FAMILY = "scalars"
DYNAMIC = {"x1": {0: "batch", 2: "height", 3: "width"}, "x2": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-78"


def window_partition(x, window_size):
    B, H, W, C = x.shape
    x = x.view(B, H // window_size[0], window_size[0], W // window_size[1], window_size[1], C)
    windows = (
        x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, window_size[0]*window_size[1], C)
    )
    return windows


def window_reverse(windows, window_size, H, W):
    nwB, N, C = windows.shape
    windows = windows.view(-1, window_size[0], window_size[1], C)
    B = int(nwB / (H * W / window_size[0] / window_size[1]))
    x = windows.view(
        B, H // window_size[0], W // window_size[1], window_size[0], window_size[1], -1
    )
    x = x.permute(0, 1, 3, 2, 4, 5).contiguous().view(B, H, W, -1)
    return x


def pad_if_needed(x, size, window_size):
    n, h, w, c = size
    pad_h = math.ceil(h / window_size[0]) * window_size[0] - h
    pad_w = math.ceil(w / window_size[1]) * window_size[1] - w
    if pad_h > 0 or pad_w > 0:  # center-pad the feature on H and W axes
        img_mask = torch.zeros((1, h+pad_h, w+pad_w, 1))  # 1 H W 1
        h_slices = (slice(0, pad_h//2), slice(pad_h//2, h+pad_h//2), slice(h+pad_h//2, None))
        w_slices = (slice(0, pad_w//2), slice(pad_w//2, w+pad_w//2), slice(w+pad_w//2, None))
        cnt = 0
        for h in h_slices:
            for w in w_slices:
                img_mask[:, h, w, :] = cnt
                cnt += 1
        mask_windows = window_partition(img_mask, window_size)  # nW, window_size*window_size, 1
        mask_windows = mask_windows.squeeze(-1)
        attn_mask = mask_windows.unsqueeze(1) - mask_windows.unsqueeze(2)
        attn_mask = attn_mask.masked_fill(attn_mask != 0, float(-100.0)).masked_fill(attn_mask == 0, float(0.0))
        return nn.functional.pad(
            x,
            (0, 0, pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h // 2),
        ), attn_mask
    return x, None


def depad_if_needed(x, size, window_size):
    n, h, w, c = size
    pad_h = math.ceil(h / window_size[0]) * window_size[0] - h
    pad_w = math.ceil(w / window_size[1]) * window_size[1] - w
    if pad_h > 0 or pad_w > 0:  # remove the center-padding on feature
        return x[:, pad_h // 2 : pad_h // 2 + h, pad_w // 2 : pad_w // 2 + w, :].contiguous()
    return x


class InterFrameAttention(nn.Module):
    def __init__(self, dim, motion_dim, num_heads=4):
        super().__init__()
        self.num_heads = num_heads
        self.motion_dim = motion_dim
        self.scale = (dim // num_heads) ** -0.5
        self.q = nn.Linear(dim, dim)
        self.kv = nn.Linear(dim, dim * 2)
        self.cor_embed = nn.Linear(2, motion_dim)
        self.proj = nn.Linear(dim, dim)
        self.motion_proj = nn.Linear(motion_dim, motion_dim)

    def forward(self, x1, x2, cor, H, W, mask=None):
        B, N, C = x1.shape
        q = self.q(x1).reshape(B, N, self.num_heads, C // self.num_heads).permute(0, 2, 1, 3)
        kv = self.kv(x2).reshape(B, -1, 2, self.num_heads, C // self.num_heads).permute(2, 0, 3, 1, 4)
        cor_embed_ = self.cor_embed(cor)
        cor_embed = cor_embed_.reshape(B, N, self.num_heads, self.motion_dim // self.num_heads).permute(0, 2, 1, 3)
        k, v = kv[0], kv[1]
        attn = (q @ k.transpose(-2, -1)) * self.scale
        if mask is not None:
            nW = mask.shape[0]  # mask: nW, N, N
            attn = attn.view(B // nW, nW, self.num_heads, N, N) + mask.unsqueeze(1).unsqueeze(0)
            attn = attn.view(-1, self.num_heads, N, N)
        attn = attn.softmax(dim=-1)
        x = (attn @ v).transpose(1, 2).reshape(B, N, C)
        c_reverse = (attn @ cor_embed).transpose(1, 2).reshape(B, N, -1)
        return self.proj(x), self.motion_proj(c_reverse - cor_embed_)


class MotionFormerBlock(nn.Module):
    def __init__(self, dim, motion_dim, num_heads, window_size=7, shift_size=3):
        super().__init__()
        self.window_size = (window_size, window_size)
        self.shift_size = (shift_size, shift_size)
        self.norm1 = nn.LayerNorm(dim)
        self.attn = InterFrameAttention(dim, motion_dim, num_heads=num_heads)

    def forward(self, x, cor, H, W, B):
        x = x.view(2*B, H, W, -1)
        x_pad, mask = pad_if_needed(x, x.size(), self.window_size)
        cor_pad, _ = pad_if_needed(cor, cor.size(), self.window_size)
        if self.shift_size[0] or self.shift_size[1]:
            _, H_p, W_p, C = x_pad.shape
            x_pad = torch.roll(x_pad, shifts=(-self.shift_size[0], -self.shift_size[1]), dims=(1, 2))
            cor_pad = torch.roll(cor_pad, shifts=(-self.shift_size[0], -self.shift_size[1]), dims=(1, 2))
            if hasattr(self, 'HW') and self.HW.item() == H_p * W_p:
                shift_mask = self.attn_mask
            else:
                shift_mask = torch.zeros((1, H_p, W_p, 1))  # 1 H W 1
                h_slices = (slice(0, -self.window_size[0]), slice(-self.window_size[0], -self.shift_size[0]),
                            slice(-self.shift_size[0], None))
                w_slices = (slice(0, -self.window_size[1]), slice(-self.window_size[1], -self.shift_size[1]),
                            slice(-self.shift_size[1], None))
                cnt = 0
                for h in h_slices:
                    for w in w_slices:
                        shift_mask[:, h, w, :] = cnt
                        cnt += 1
                mask_windows = window_partition(shift_mask, self.window_size).squeeze(-1)
                shift_mask = mask_windows.unsqueeze(1) - mask_windows.unsqueeze(2)
                shift_mask = shift_mask.masked_fill(shift_mask != 0, float(-100.0)).masked_fill(shift_mask == 0, float(0.0))
                if mask is not None:
                    shift_mask = shift_mask.masked_fill(mask != 0, float(-100.0))
                self.register_buffer("attn_mask", shift_mask)
                self.register_buffer("HW", torch.Tensor([H_p*W_p]))
        else:
            shift_mask = mask
        if shift_mask is not None:
            shift_mask = shift_mask.to(x_pad.device)

        _, Hw, Ww, C = x_pad.shape
        x_win = window_partition(x_pad, self.window_size)
        cor_win = window_partition(cor_pad, self.window_size)
        nwB = x_win.shape[0]
        x_norm = self.norm1(x_win)
        x_reverse = torch.cat([x_norm[nwB//2:], x_norm[:nwB//2]])
        x_appearence, x_motion = self.attn(x_norm, x_reverse, cor_win, H, W, shift_mask)
        x_norm = x_norm + x_appearence
        x_back_win = window_reverse(x_norm, self.window_size, Hw, Ww)
        x_motion = window_reverse(x_motion, self.window_size, Hw, Ww)
        if self.shift_size[0] or self.shift_size[1]:
            x_back_win = torch.roll(x_back_win, shifts=(self.shift_size[0], self.shift_size[1]), dims=(1, 2))
            x_motion = torch.roll(x_motion, shifts=(self.shift_size[0], self.shift_size[1]), dims=(1, 2))
        x = depad_if_needed(x_back_win, x.size(), self.window_size).view(2*B, H * W, -1)
        x_motion = depad_if_needed(x_motion, cor.size(), self.window_size).view(2*B, H * W, -1)
        return x, x_motion


class FeatureStage(nn.Module):
    """The transformer stage of EMA-VFI's feature_extractor (embedded features in, per frame pair)."""

    def __init__(self, dim=32, motion_dim=16, num_heads=4):
        super().__init__()
        self.cor = {}
        self.block = nn.ModuleList([MotionFormerBlock(dim, motion_dim, num_heads, shift_size=0),
                                    MotionFormerBlock(dim, motion_dim, num_heads, shift_size=3)])

    def get_cor(self, shape, device):
        k = (str(shape), str(device))
        if k not in self.cor:
            tenHorizontal = torch.linspace(-1.0, 1.0, shape[2], device=device).view(
                1, 1, 1, shape[2]).expand(shape[0], -1, shape[1], -1).permute(0, 2, 3, 1)
            tenVertical = torch.linspace(-1.0, 1.0, shape[1], device=device).view(
                1, 1, shape[1], 1).expand(shape[0], -1, -1, shape[2]).permute(0, 2, 3, 1)
            self.cor[k] = torch.cat([tenHorizontal, tenVertical], -1).to(device)
        return self.cor[k]

    def forward(self, x1, x2):
        B = x1.shape[0]
        x = torch.cat([x1, x2], 0)
        H, W = x.shape[2], x.shape[3]
        x = x.flatten(2).transpose(1, 2)
        cor = self.get_cor((x.shape[0], H, W), x.device)
        motion_features = []
        for blk in self.block:
            x, x_motion = blk(x, cor, H, W, B)
            motion_features.append(x_motion.reshape(2*B, H, W, -1).permute(0, 3, 1, 2).contiguous())
        x = x.reshape(2*B, H, W, -1).permute(0, 3, 1, 2).contiguous()
        return x, torch.cat(motion_features, 1)


def make_model():
    return FeatureStage().eval()


def example_inputs():
    return (torch.randn(1, 32, 12, 16), torch.randn(1, 32, 12, 16))


def other_inputs():
    return [(torch.randn(2, 32, 9, 22), torch.randn(2, 32, 9, 22)),
            (torch.randn(1, 32, 20, 15), torch.randn(1, 32, 20, 15))]


def probe_inputs():
    return other_inputs()
