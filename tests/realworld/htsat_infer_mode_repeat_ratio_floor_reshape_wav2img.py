"""HTS-AT sound event detection (RetroCirce/HTS-Audio-Transformer): exporting the sed_model with
torch.onnx.export fails; its infer_mode path repeats the log-mel `math.floor(target_T / frame_num)`
times and `reshape_wav2img` asserts/branches on `T < target_T` before a bicubic interpolate, so the
repeat count and the branch are Python values taken from the input length.

Source: https://github.com/RetroCirce/HTS-Audio-Transformer/issues/64
"""
import math

import numpy as np
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 1: "samples"}}
BLIND = "domains-76"


class Spectrogram(nn.Module):
    # torchlibrosa-style STFT as conv1d with fixed DFT kernels
    def __init__(self, n_fft=32, hop_length=16):
        super().__init__()
        self.n_fft, self.hop_length = n_fft, hop_length
        n = np.arange(n_fft)
        k = np.arange(n_fft // 2 + 1)
        window = 0.5 - 0.5 * np.cos(2 * np.pi * n / n_fft)
        ang = 2 * np.pi * np.outer(k, n) / n_fft
        self.conv_real = nn.Conv1d(1, n_fft // 2 + 1, n_fft, stride=hop_length, bias=False)
        self.conv_imag = nn.Conv1d(1, n_fft // 2 + 1, n_fft, stride=hop_length, bias=False)
        self.conv_real.weight.data = torch.Tensor(np.cos(ang) * window)[:, None, :]
        self.conv_imag.weight.data = torch.Tensor(-np.sin(ang) * window)[:, None, :]

    def forward(self, input):
        x = input[:, None, :]
        x = nn.functional.pad(x, pad=(self.n_fft // 2, self.n_fft // 2), mode='reflect')
        real = self.conv_real(x).transpose(1, 2)[:, None, :, :]
        imag = self.conv_imag(x).transpose(1, 2)[:, None, :, :]
        return real ** 2 + imag ** 2  # (batch_size, 1, time_steps, freq_bins)


class LogmelFilterBank(nn.Module):
    def __init__(self, n_freq=17, n_mels=8):
        super().__init__()
        self.melW = nn.Parameter(torch.rand(n_freq, n_mels), requires_grad=False)

    def forward(self, input):
        mel = torch.matmul(input, self.melW)
        return 10.0 * torch.log10(torch.clamp(mel, min=1e-10, max=np.inf))


def interpolate(x, ratio):
    (batch_size, time_steps, classes_num) = x.shape
    upsampled = x[:, :, None, :].repeat(1, 1, ratio, 1)
    upsampled = upsampled.reshape(batch_size, time_steps * ratio, classes_num)
    return upsampled


class HTSAT_Swin_Transformer(nn.Module):
    def __init__(self, spec_size=32, patch_stride=(4, 4), mel_bins=8, embed_dim=16, num_classes=5):
        super().__init__()
        self.spec_size = spec_size
        self.freq_ratio = 4
        self.patch_stride = patch_stride
        self.spectrogram_extractor = Spectrogram()
        self.logmel_extractor = LogmelFilterBank(n_mels=mel_bins)
        self.bn0 = nn.BatchNorm2d(mel_bins)
        self.patch_embed = nn.Conv2d(1, embed_dim, kernel_size=patch_stride, stride=patch_stride)
        self.norm = nn.LayerNorm(embed_dim)
        self.tscam_conv = nn.Conv2d(embed_dim, num_classes, kernel_size=(spec_size // patch_stride[0] // self.freq_ratio, 3), padding=(0, 1))
        self.avgpool = nn.AdaptiveAvgPool1d(1)

    def forward_features(self, x):
        x = self.patch_embed(x)  # B C SF ST
        B, C, SF, ST = x.shape
        x = self.norm(x.flatten(2).transpose(1, 2))
        x = x.permute(0, 2, 1).contiguous().reshape(B, C, SF, ST)
        c_freq_bin = SF // self.freq_ratio
        x = x.reshape(B, C, SF // c_freq_bin, c_freq_bin, ST)
        x = x.permute(0, 1, 3, 2, 4).contiguous().reshape(B, C, c_freq_bin, -1)
        x = self.tscam_conv(x)
        x = torch.flatten(x, 2)  # B, C, T
        fpx = interpolate(torch.sigmoid(x).permute(0, 2, 1).contiguous(), 8 * self.patch_stride[1])
        x = self.avgpool(x)
        x = torch.flatten(x, 1)
        return {'framewise_output': fpx, 'clipwise_output': torch.sigmoid(x)}

    # Reshape the wavform to a img size, if you want to use the pretrained swin transformer model
    def reshape_wav2img(self, x):
        B, C, T, F = x.shape
        target_T = int(self.spec_size * self.freq_ratio)
        target_F = self.spec_size // self.freq_ratio
        assert T <= target_T and F <= target_F, "the wav size should less than or equal to the swin input size"
        # to avoid bicubic zero error
        if T < target_T:
            x = nn.functional.interpolate(x, (target_T, x.shape[3]), mode="bicubic", align_corners=True)
        if F < target_F:
            x = nn.functional.interpolate(x, (x.shape[2], target_F), mode="bicubic", align_corners=True)
        x = x.permute(0, 1, 3, 2).contiguous()
        x = x.reshape(x.shape[0], x.shape[1], x.shape[2], self.freq_ratio, x.shape[3] // self.freq_ratio)
        x = x.permute(0, 1, 3, 2, 4).contiguous()
        x = x.reshape(x.shape[0], x.shape[1], x.shape[2] * x.shape[3], x.shape[4])
        return x

    def forward(self, x: torch.Tensor, mixup_lambda=None, infer_mode=False):
        x = self.spectrogram_extractor(x)   # (batch_size, 1, time_steps, freq_bins)
        x = self.logmel_extractor(x)    # (batch_size, 1, time_steps, mel_bins)
        x = x.transpose(1, 3)
        x = self.bn0(x)
        x = x.transpose(1, 3)
        if infer_mode:
            # in infer mode. we need to handle different length audio input
            frame_num = x.shape[2]
            target_T = int(self.spec_size * self.freq_ratio)
            repeat_ratio = math.floor(target_T / frame_num)
            x = x.repeat(repeats=(1, 1, repeat_ratio, 1))
            x = self.reshape_wav2img(x)
            output_dict = self.forward_features(x)
        else:
            x = self.reshape_wav2img(x)
            output_dict = self.forward_features(x)
        return output_dict


class SEDWrapper(nn.Module):
    def __init__(self, sed_model):
        super().__init__()
        self.sed_model = sed_model

    def forward(self, x):
        output_dict = self.sed_model(x, None, True)
        return output_dict["clipwise_output"], output_dict["framewise_output"]


def make_model():
    return SEDWrapper(HTSAT_Swin_Transformer()).eval()


def example_inputs():
    return (torch.randn(2, 800),)


def other_inputs():
    return [(torch.randn(3, 1200),), (torch.randn(1, 480),)]


def probe_inputs():
    return other_inputs()
