"""SNR-aware low-light enhancement (SNR_SKF `low_light_transformer`): the forward builds a location grid with
`np.linspace(-1, 1, fea.size(3) // 4)` / `np.meshgrid` / `torch.Tensor(xs)`, unfolds the 1/4-resolution features into
4x4 patches for a masked transformer, zeroes `mask_unfold[mask_unfold <= 0.5]`, and folds back with
`nn.Fold(output_size=(height, width), ...)` where height/width come from `fea.shape`. Exporting SNR_SKF to ONNX failed in
symbolic_helper with "TypeError: 'NoneType' object is not subscriptable (Occurred when translating col2im)".

Source: https://github.com/ailia-ai/ailia-models/issues/1190
"""
import functools

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "numpy-from-shape"
FAMILY = "numpy_interop"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}, "mask": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-42"


class ResidualBlock_noBN(nn.Module):
    def __init__(self, nf=64):
        super(ResidualBlock_noBN, self).__init__()
        self.conv1 = nn.Conv2d(nf, nf, 3, 1, 1, bias=True)
        self.conv2 = nn.Conv2d(nf, nf, 3, 1, 1, bias=True)

    def forward(self, x):
        identity = x
        out = F.relu(self.conv1(x), inplace=True)
        out = self.conv2(out)
        return identity + out


def make_layer(block, n_layers):
    return nn.Sequential(*[block() for _ in range(n_layers)])


class EncoderLayer3(nn.Module):
    # trimmed: one masked multi-head self-attention + feed-forward (the repo's ScaledDotProductAttention masking)
    def __init__(self, d_model, d_inner, n_head):
        super().__init__()
        self.n_head = n_head
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=False)
        self.fc = nn.Linear(d_model, d_model, bias=False)
        self.ffn = nn.Sequential(nn.Linear(d_model, d_inner), nn.ReLU(), nn.Linear(d_inner, d_model))
        self.norm1 = nn.LayerNorm(d_model, eps=1e-6)
        self.norm2 = nn.LayerNorm(d_model, eps=1e-6)

    def forward(self, enc_input, slf_attn_mask=None):
        b, n, c = enc_input.shape
        q, k, v = self.qkv(enc_input).view(b, n, 3, self.n_head, c // self.n_head).permute(2, 0, 3, 1, 4)
        attn = torch.matmul(q / (c // self.n_head) ** 0.5, k.transpose(2, 3))
        if slf_attn_mask is not None:
            attn = attn.masked_fill(slf_attn_mask.unsqueeze(1) == 0, -1e9)
        attn = F.softmax(attn, dim=-1)
        out = torch.matmul(attn, v).transpose(1, 2).reshape(b, n, c)
        out = self.norm1(self.fc(out) + enc_input)
        out = self.norm2(self.ffn(out) + out)
        return out, attn


class Encoder_patch66(nn.Module):
    def __init__(self, d_model=576, d_inner=2048, n_layers=6, n_head=8):
        super().__init__()
        self.layer_stack = nn.ModuleList([EncoderLayer3(d_model, d_inner, n_head) for _ in range(n_layers)])

    def forward(self, src_fea, src_location, return_attns=False, src_mask=None):
        enc_output = src_fea
        for enc_layer in self.layer_stack:
            enc_output, enc_slf_attn = enc_layer(enc_output, slf_attn_mask=src_mask)
        return enc_output


class low_light_transformer(nn.Module):
    def __init__(self, nf=16, front_RBs=1, back_RBs=1):
        super(low_light_transformer, self).__init__()
        ResidualBlock_noBN_f = functools.partial(ResidualBlock_noBN, nf=nf)
        self.conv_first_1 = nn.Conv2d(3, nf, 3, 1, 1, bias=True)
        self.conv_first_2 = nn.Conv2d(nf, nf, 3, 2, 1, bias=True)
        self.conv_first_3 = nn.Conv2d(nf, nf, 3, 2, 1, bias=True)
        self.feature_extraction = make_layer(ResidualBlock_noBN_f, front_RBs)
        self.recon_trunk = make_layer(ResidualBlock_noBN_f, back_RBs)
        self.upconv1 = nn.Conv2d(nf * 2, nf * 4, 3, 1, 1, bias=True)
        self.upconv2 = nn.Conv2d(nf * 2, 16 * 4, 3, 1, 1, bias=True)
        self.pixel_shuffle = nn.PixelShuffle(2)
        self.HRconv = nn.Conv2d(16 + nf, 16, 3, 1, 1, bias=True)
        self.conv_last = nn.Conv2d(16, 3, 3, 1, 1, bias=True)
        self.lrelu = nn.LeakyReLU(negative_slope=0.1, inplace=True)
        self.transformer = Encoder_patch66(d_model=nf * 16, d_inner=nf * 32, n_layers=1, n_head=2)
        self.recon_trunk_light = make_layer(ResidualBlock_noBN_f, 1)

    def forward(self, x, mask=None):
        x_center = x

        L1_fea_1 = self.lrelu(self.conv_first_1(x_center))
        L1_fea_2 = self.lrelu(self.conv_first_2(L1_fea_1))
        L1_fea_3 = self.lrelu(self.conv_first_3(L1_fea_2))

        fea = self.feature_extraction(L1_fea_3)
        fea_light = self.recon_trunk_light(fea)

        h_feature = fea.shape[2]
        w_feature = fea.shape[3]
        mask = F.interpolate(mask, size=[h_feature, w_feature], mode='nearest')

        xs = np.linspace(-1, 1, fea.size(3) // 4)
        ys = np.linspace(-1, 1, fea.size(2) // 4)
        xs = np.meshgrid(xs, ys)
        xs = np.stack(xs, 2)
        xs = torch.Tensor(xs).unsqueeze(0).repeat(fea.size(0), 1, 1, 1).to(x.device)  # repo: .cuda()
        xs = xs.view(fea.size(0), -1, 2)

        height = fea.shape[2]
        width = fea.shape[3]
        fea_unfold = F.unfold(fea, kernel_size=4, dilation=1, stride=4, padding=0)
        fea_unfold = fea_unfold.permute(0, 2, 1)

        mask_unfold = F.unfold(mask, kernel_size=4, dilation=1, stride=4, padding=0)
        mask_unfold = mask_unfold.permute(0, 2, 1)
        mask_unfold = torch.mean(mask_unfold, dim=2).unsqueeze(dim=-2)
        mask_unfold[mask_unfold <= 0.5] = 0.0

        fea_unfold = self.transformer(fea_unfold, xs, src_mask=mask_unfold)
        fea_unfold = fea_unfold.permute(0, 2, 1)
        fea_unfold = nn.Fold(output_size=(height, width), kernel_size=(4, 4), stride=4, padding=0, dilation=1)(fea_unfold)

        channel = fea.shape[1]
        mask = mask.repeat(1, channel, 1, 1)
        fea = fea_unfold * (1 - mask) + fea_light * mask

        out_noise = self.recon_trunk(fea)
        out_noise = torch.cat([out_noise, L1_fea_3], dim=1)
        out_noise = self.lrelu(self.pixel_shuffle(self.upconv1(out_noise)))
        out_noise = torch.cat([out_noise, L1_fea_2], dim=1)
        out_noise = self.lrelu(self.pixel_shuffle(self.upconv2(out_noise)))
        out_noise = torch.cat([out_noise, L1_fea_1], dim=1)
        out_noise = self.lrelu(self.HRconv(out_noise))
        out_noise = self.conv_last(out_noise)
        out_noise = out_noise + x_center

        return out_noise


def make_model():
    return low_light_transformer().eval()


def _pair(b, h, w):
    x = torch.rand(b, 3, h, w) * 0.3
    # SNR map as the repo computes it outside the network: denoised / (noisy + eps), normalised to [0, 1]
    dark = x.mean(dim=1, keepdim=True)
    light = F.avg_pool2d(dark, 5, 1, 2)
    snr = light / (torch.abs(dark - light) + 0.0001)
    mask = snr / snr.flatten(1).max(dim=1)[0].view(b, 1, 1, 1)
    return x, mask


def example_inputs():
    return _pair(1, 64, 96)


def other_inputs():
    return [_pair(2, 96, 64), _pair(1, 128, 80)]


def probe_inputs():
    return other_inputs()
