"""Video Depth Anything: `forward` computes `patch_h, patch_w = H // 14, W // 14` and passes them (with the frame
count `T`) as Python ints to the temporal DPT head, which reshapes tokens to `(.., patch_h, patch_w)`, unflattens
`(B, T)` for the temporal attention (positional table built for `temporal_max_len` frames) and resizes with
`(int(patch_h * 14), int(patch_w * 14))`; the user reports the ONNX export does not work with dynamic input
shapes. DINOv2 is replaced by a stride-14 patch embedding; einops `rearrange` is written as permute/reshape.

Source: https://github.com/DepthAnything/Video-Depth-Anything/issues/22
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 1: "frames", 3: "height", 4: "width"}}
BLIND = "domains-2"


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0., max_len=32):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(1, max_len, d_model)
        pe[0, :, 0::2] = torch.sin(position * div_term)
        pe[0, :, 1::2] = torch.cos(position * div_term)
        self.register_buffer('pe', pe)

    def forward(self, x):
        x = x + self.pe[:, :x.size(1)].to(x.dtype)
        return self.dropout(x)


class TemporalModule(nn.Module):
    def __init__(self, in_channels, temporal_max_len=32):
        super().__init__()
        self.pos_encoder = PositionalEncoding(in_channels, max_len=temporal_max_len)
        self.attn = nn.MultiheadAttention(in_channels, 2, batch_first=True)

    def forward(self, hidden_states):  # b c f h w
        b, c, f, h, w = hidden_states.shape
        x = hidden_states.permute(0, 3, 4, 2, 1).reshape(b * h * w, f, c)  # (b h w) f c
        x = self.pos_encoder(x)
        x = x + self.attn(x, x, x, need_weights=False)[0]
        return x.reshape(b, h, w, f, c).permute(0, 4, 3, 1, 2)


class DPTHeadTemporal(nn.Module):
    def __init__(self, in_channels=16, features=8, num_frames=32):
        super().__init__()
        self.project = nn.Conv2d(in_channels, features, 1)
        self.motion_module = TemporalModule(features, temporal_max_len=num_frames)
        self.output_conv1 = nn.Conv2d(features, features // 2, 3, 1, 1)
        self.output_conv2 = nn.Sequential(nn.Conv2d(features // 2, 1, 1), nn.ReLU(True))

    def forward(self, x, patch_h, patch_w, frame_length):
        x = x.permute(0, 2, 1).reshape((x.shape[0], x.shape[-1], patch_h, patch_w)).contiguous()
        x = self.project(x)
        B, T = x.shape[0] // frame_length, frame_length
        x = self.motion_module(x.unflatten(0, (B, T)).permute(0, 2, 1, 3, 4)).permute(0, 2, 1, 3, 4).flatten(0, 1)
        out = self.output_conv1(x)
        out = F.interpolate(out, (int(patch_h * 14), int(patch_w * 14)), mode="bilinear", align_corners=True)
        return self.output_conv2(out)


class VideoDepthAnything(nn.Module):
    def __init__(self, embed_dim=16, num_frames=32):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, embed_dim, kernel_size=14, stride=14)  # stand-in for DINOv2
        self.head = DPTHeadTemporal(embed_dim, num_frames=num_frames)

    def forward(self, x):
        B, T, C, H, W = x.shape
        patch_h, patch_w = H // 14, W // 14
        features = self.patch_embed(x.flatten(0, 1)).flatten(2).transpose(1, 2)
        depth = self.head(features, patch_h, patch_w, T)
        depth = F.interpolate(depth, size=(H, W), mode="bilinear", align_corners=True)
        depth = F.relu(depth)
        return depth.squeeze(1).unflatten(0, (B, T))  # return shape [B, T, H, W]


def make_model():
    return VideoDepthAnything().eval()


def example_inputs():
    return (torch.randn(1, 4, 3, 56, 70),)


def other_inputs():
    return [(torch.randn(2, 6, 3, 42, 84),), (torch.randn(1, 3, 3, 70, 56),)]


def probe_inputs():
    return other_inputs()
