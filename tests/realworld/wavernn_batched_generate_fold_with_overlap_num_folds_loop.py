"""fatchord WaveRNN vocoder, batched generation front end: the mel is padded with `pad_tensor`, upsampled, then cut
into overlapping segments by `fold_with_overlap`, which computes `num_folds` with Python arithmetic on the upsampled
length, pads `if remaining != 0`, and copies each segment in `for i in range(num_folds)`; Open Model Zoo's ONNX
export exports only the upsampler and a single RNN step and leaves `pad_tensor`/`fold` in Python.

Source: https://github.com/openvinotoolkit/open_model_zoo/blob/1eae676a08a9acd0953fb4512881abfc3e7e3178/models/public/wavernn/wavernn_to_onnx.py
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"mels": {2: "frames"}}
BLIND = "domains-83"


class MelResNet(nn.Module):
    def __init__(self, in_dims, compute_dims, res_out_dims, pad):
        super().__init__()
        k_size = pad * 2 + 1
        self.conv_in = nn.Conv1d(in_dims, compute_dims, kernel_size=k_size, bias=False)
        self.batch_norm = nn.BatchNorm1d(compute_dims)
        self.conv_out = nn.Conv1d(compute_dims, res_out_dims, kernel_size=1)

    def forward(self, x):
        x = F.relu(self.batch_norm(self.conv_in(x)))
        return self.conv_out(x)


class Stretch2d(nn.Module):
    def __init__(self, x_scale, y_scale):
        super().__init__()
        self.x_scale = x_scale
        self.y_scale = y_scale

    def forward(self, x):
        b, c, h, w = x.size()
        x = x.unsqueeze(-1).unsqueeze(3)
        x = x.repeat(1, 1, 1, self.y_scale, 1, self.x_scale)
        return x.view(b, c, h * self.y_scale, w * self.x_scale)


class UpsampleNetwork(nn.Module):
    def __init__(self, feat_dims, upsample_scales, compute_dims, res_out_dims, pad):
        super().__init__()
        total_scale = np.cumproduct(upsample_scales)[-1] if hasattr(np, "cumproduct") else np.cumprod(upsample_scales)[-1]
        self.indent = int(pad * total_scale)
        self.resnet = MelResNet(feat_dims, compute_dims, res_out_dims, pad)
        self.resnet_stretch = Stretch2d(int(total_scale), 1)
        self.up_layers = nn.ModuleList()
        for scale in upsample_scales:
            k_size = (1, scale * 2 + 1)
            padding = (0, scale)
            stretch = Stretch2d(scale, 1)
            conv = nn.Conv2d(1, 1, kernel_size=k_size, padding=padding, bias=False)
            conv.weight.data.fill_(1. / k_size[1])
            self.up_layers.append(stretch)
            self.up_layers.append(conv)

    def forward(self, m):
        aux = self.resnet(m).unsqueeze(1)
        aux = self.resnet_stretch(aux)
        aux = aux.squeeze(1)
        m = m.unsqueeze(1)
        for f in self.up_layers: m = f(m)
        m = m.squeeze(1)[:, :, self.indent:-self.indent]
        return m.transpose(1, 2), aux.transpose(1, 2)


class WaveRNN(nn.Module):
    def __init__(self, feat_dims=16, upsample_factors=(2, 2), compute_dims=16, res_out_dims=8, pad=2,
                 target=20, overlap=4):
        super().__init__()
        self.pad = pad
        self.target = target
        self.overlap = overlap
        self.upsample = UpsampleNetwork(feat_dims, upsample_factors, compute_dims, res_out_dims, pad)

    def pad_tensor(self, x, pad, side='both'):
        # NB - this is just a quick method i need right now
        # i.e., it won't generalise to other shapes/dims
        b, t, c = x.size()
        total = t + 2 * pad if side == 'both' else t + pad
        padded = torch.zeros(b, total, c).cpu()
        if side == 'before' or side == 'both':
            padded[:, pad:pad + t, :] = x
        elif side == 'after':
            padded[:, :t, :] = x
        return padded

    def fold_with_overlap(self, x, target, overlap):
        _, total_len, features = x.size()

        # Calculate variables needed
        num_folds = (total_len - overlap) // (target + overlap)
        extended_len = num_folds * (overlap + target) + overlap
        remaining = total_len - extended_len

        # Pad if some time steps poking out
        if remaining != 0:
            num_folds += 1
            padding = target + 2 * overlap - remaining
            x = self.pad_tensor(x, padding, side='after')

        folded = torch.zeros(num_folds, target + 2 * overlap, features).cpu()

        # Get the values for the folded tensor
        for i in range(num_folds):
            start = i * (target + overlap)
            end = start + target + 2 * overlap
            folded[i] = x[:, start:end, :]

        return folded

    def forward(self, mels):
        mels = self.pad_tensor(mels.transpose(1, 2), pad=self.pad, side='both')
        mels, aux = self.upsample(mels.transpose(1, 2))
        mels = self.fold_with_overlap(mels, self.target, self.overlap)
        aux = self.fold_with_overlap(aux, self.target, self.overlap)
        return mels, aux


def make_model():
    return WaveRNN().eval()


def example_inputs():
    return (torch.randn(1, 16, 10),)


def other_inputs():
    return [(torch.randn(1, 16, 17),), (torch.randn(1, 16, 6),)]


def probe_inputs():
    return other_inputs()
