"""MMOCR 0.x NRTR transformer encoder: `forward(feat, img_metas)` reads `valid_ratio` from each image's meta dict and
builds the padding mask in a Python loop (`valid_width = min(T, math.ceil(T * valid_ratio)); mask[i, :valid_width]
= 1`); after export to TorchScript/ONNX the user cannot feed `img_meta` (plain Python floats), and the maintainers'
advice is to keep the aspect ratio of the export image, i.e. the mask is frozen at the export-time values.

Source: https://github.com/open-mmlab/mmocr/issues/445
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"feat": {0: "batch", 3: "width"}}
BLIND = "domains-38"


class TFEncoderLayer(nn.Module):
    def __init__(self, d_model=16, d_inner=32, n_head=2):
        super().__init__()
        self.n_head = n_head
        self.d_k = d_model // n_head
        self.norm1 = nn.LayerNorm(d_model)
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=False)
        self.fc = nn.Linear(d_model, d_model, bias=False)
        self.norm2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, d_inner), nn.ReLU(), nn.Linear(d_inner, d_model))

    def attn(self, x, mask=None):
        n, t, c = x.size()
        q, k, v = self.qkv(x).view(n, t, 3, self.n_head, self.d_k).permute(2, 0, 3, 1, 4)
        logits = torch.matmul(q / self.d_k ** 0.5, k.transpose(2, 3))
        if mask is not None:
            logits = logits.masked_fill(mask.unsqueeze(1).unsqueeze(1) == 0, float('-inf'))
        out = torch.matmul(F.softmax(logits, dim=-1), v)
        return self.fc(out.transpose(1, 2).contiguous().view(n, t, c))

    def forward(self, x, mask=None):
        x = x + self.attn(self.norm1(x), mask)
        return x + self.mlp(self.norm2(x))


class NRTREncoder(nn.Module):
    def __init__(self, n_layers=2, d_model=16, d_inner=32):
        super().__init__()
        self.layer_stack = nn.ModuleList([TFEncoderLayer(d_model, d_inner) for _ in range(n_layers)])
        self.layer_norm = nn.LayerNorm(d_model)

    def _get_mask(self, logit, img_metas):
        valid_ratios = None
        if img_metas is not None:
            valid_ratios = [
                img_meta.get('valid_ratio', 1.0) for img_meta in img_metas
            ]
        N, T, _ = logit.size()
        mask = None
        if valid_ratios is not None:
            mask = logit.new_zeros((N, T))
            for i, valid_ratio in enumerate(valid_ratios):
                valid_width = min(T, math.ceil(T * valid_ratio))
                mask[i, :valid_width] = 1

        return mask

    def forward(self, feat, img_metas=None):
        n, c, h, w = feat.size()
        feat = feat.view(n, c, h * w).permute(0, 2, 1).contiguous()

        mask = self._get_mask(feat, img_metas)

        output = feat
        for enc_layer in self.layer_stack:
            output = enc_layer(output, mask)
        output = self.layer_norm(output)

        return output


def make_model():
    return NRTREncoder().eval()


def example_inputs():
    return (torch.randn(2, 16, 1, 12), [{'valid_ratio': 1.0}, {'valid_ratio': 0.5}])


def other_inputs():
    return [(torch.randn(3, 16, 1, 20), [{'valid_ratio': 0.75}, {'valid_ratio': 1.0}, {'valid_ratio': 0.25}]),
            (torch.randn(1, 16, 1, 8), [{'valid_ratio': 0.5}])]


def probe_inputs():
    return other_inputs()
