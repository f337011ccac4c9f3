"""MMOCR SATRN text-recognition encoder: `forward` builds `valid_ratios = [1.0 for _ in range(feat.size(0))]`
and fills the attention mask per sample (`for i, valid_ratio in enumerate(valid_ratios): valid_width =
min(w, math.ceil(w * valid_ratio)); mask[i, :, :valid_width] = 1`), so the exported ONNX model only works at the
export batch size; mmdeploy had to rewrite SATRNEncoder.forward to fix onnxruntime batch inference.

Source: https://github.com/open-mmlab/mmdeploy/pull/2139
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"feat": {0: "batch", 3: "width"}}
BLIND = "domains-38"


class MultiHeadAttention(nn.Module):
    def __init__(self, n_head=2, d_model=16, d_k=8, d_v=8):
        super().__init__()
        self.n_head, self.d_k, self.d_v = n_head, d_k, d_v
        self.linear_q = nn.Linear(d_model, n_head * d_k, bias=False)
        self.linear_k = nn.Linear(d_model, n_head * d_k, bias=False)
        self.linear_v = nn.Linear(d_model, n_head * d_v, bias=False)
        self.fc = nn.Linear(n_head * d_v, d_model, bias=False)

    def forward(self, q, k, v, mask=None):
        batch_size, len_q, _ = q.size()
        _, len_k, _ = k.size()
        q = self.linear_q(q).view(batch_size, len_q, self.n_head, self.d_k).transpose(1, 2)
        k = self.linear_k(k).view(batch_size, len_k, self.n_head, self.d_k).transpose(1, 2)
        v = self.linear_v(v).view(batch_size, len_k, self.n_head, self.d_v).transpose(1, 2)
        if mask is not None:
            if mask.dim() == 3:
                mask = mask.unsqueeze(1)
            elif mask.dim() == 2:
                mask = mask.unsqueeze(1).unsqueeze(1)
        attn = torch.matmul(q / self.d_k ** 0.5, k.transpose(2, 3))
        if mask is not None:
            attn = attn.masked_fill(mask == 0, float('-inf'))
        attn = F.softmax(attn, dim=-1)
        out = torch.matmul(attn, v).transpose(1, 2).contiguous().view(batch_size, len_q, -1)
        return self.fc(out)


class SATRNEncoderLayer(nn.Module):
    def __init__(self, d_model=16, d_inner=32):
        super().__init__()
        self.norm1 = nn.LayerNorm(d_model)
        self.attn = MultiHeadAttention(2, d_model, 8, 8)
        self.norm2 = nn.LayerNorm(d_model)
        self.feed_forward = nn.Sequential(
            nn.Conv2d(d_model, d_inner, 1, bias=False), nn.BatchNorm2d(d_inner), nn.ReLU(),
            nn.Conv2d(d_inner, d_inner, 3, padding=1, groups=d_inner, bias=False), nn.BatchNorm2d(d_inner), nn.ReLU(),
            nn.Conv2d(d_inner, d_model, 1, bias=False), nn.BatchNorm2d(d_model), nn.ReLU())

    def forward(self, x, h, w, mask=None):
        n, hw, c = x.size()
        residual = x
        x = self.norm1(x)
        x = residual + self.attn(x, x, x, mask)
        residual = x
        x = self.norm2(x)
        x = x.transpose(1, 2).contiguous().view(n, c, h, w)
        x = self.feed_forward(x)
        x = x.view(n, c, hw).transpose(1, 2)
        return residual + x


class SATRNEncoder(nn.Module):
    def __init__(self, n_layers=2, d_model=16, d_inner=32):
        super().__init__()
        self.position_enc = nn.Conv2d(d_model, d_model, 3, padding=1, groups=d_model)
        self.layer_stack = nn.ModuleList([SATRNEncoderLayer(d_model, d_inner) for _ in range(n_layers)])
        self.layer_norm = nn.LayerNorm(d_model)

    def forward(self, feat, data_samples=None):
        valid_ratios = [1.0 for _ in range(feat.size(0))]
        if data_samples is not None:
            valid_ratios = [
                data_sample.get('valid_ratio', 1.0)
                for data_sample in data_samples
            ]
        feat = feat + self.position_enc(feat)
        n, c, h, w = feat.size()
        mask = feat.new_zeros((n, h, w))
        for i, valid_ratio in enumerate(valid_ratios):
            valid_width = min(w, math.ceil(w * valid_ratio))
            mask[i, :, :valid_width] = 1
        mask = mask.view(n, h * w)
        feat = feat.view(n, c, h * w)

        output = feat.permute(0, 2, 1).contiguous()
        for enc_layer in self.layer_stack:
            output = enc_layer(output, h, w, mask)
        output = self.layer_norm(output)
        return output


def make_model():
    return SATRNEncoder().eval()


def example_inputs():
    return (torch.randn(2, 16, 4, 12),)


def other_inputs():
    return [(torch.randn(3, 16, 4, 20),), (torch.randn(1, 16, 4, 8),)]


def probe_inputs():
    return other_inputs()
