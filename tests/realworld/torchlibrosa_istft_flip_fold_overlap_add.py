"""Spectral-mask separator built on torchlibrosa's Conv1d STFT/ISTFT (as in bytedance's music source
separation). torchlibrosa's ISTFT rebuilds the full spectrum with torch.flip and overlap-adds the frames
with F.fold (also for the window sum); its code says both "are not supported by ONNX" and it adds an
onnx=True path with a fixed frames_num to avoid them. This is the default (onnx=False) path.

Source: https://github.com/qiuqiangkong/torchlibrosa/commit/c81541a69cf379f78b4fb98e070b6be34158ee81
"""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"input": {0: "batch", 1: "samples"}}
BLIND = "operators-19"


def hann(n):
    # librosa.filters.get_window('hann', n, fftbins=True)
    return 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / n)


def idft_matrix(n):
    (x, y) = np.meshgrid(np.arange(n), np.arange(n))
    omega = np.exp(2 * np.pi * 1j / n)
    W = np.power(omega, x * y)  # shape: (n, n)
    return W


def dft_matrix(n):
    (x, y) = np.meshgrid(np.arange(n), np.arange(n))
    omega = np.exp(-2 * np.pi * 1j / n)
    return np.power(omega, x * y)


class STFT(nn.Module):
    def __init__(self, n_fft=256, hop_length=64):
        super(STFT, self).__init__()
        self.n_fft = n_fft
        self.hop_length = hop_length
        W = dft_matrix(n_fft)
        fft_window = hann(n_fft)
        out_channels = n_fft // 2 + 1
        self.conv_real = nn.Conv1d(1, out_channels, kernel_size=n_fft, stride=hop_length, bias=False)
        self.conv_imag = nn.Conv1d(1, out_channels, kernel_size=n_fft, stride=hop_length, bias=False)
        self.conv_real.weight.data = torch.Tensor(
            np.real(W[:, 0 : out_channels] * fft_window[:, None]).T)[:, None, :].contiguous()
        self.conv_imag.weight.data = torch.Tensor(
            np.imag(W[:, 0 : out_channels] * fft_window[:, None]).T)[:, None, :].contiguous()

    def forward(self, input):
        x = input[:, None, :]
        x = F.pad(x, pad=(self.n_fft // 2, self.n_fft // 2), mode='reflect')
        real = self.conv_real(x)
        imag = self.conv_imag(x)
        real = real[:, None, :, :].transpose(2, 3)
        imag = imag[:, None, :, :].transpose(2, 3)
        return real, imag


class ISTFT(nn.Module):
    def __init__(self, n_fft=256, hop_length=64):
        super(ISTFT, self).__init__()
        self.n_fft = n_fft
        self.hop_length = hop_length
        self.win_length = n_fft
        self.center = True
        self.W = idft_matrix(self.n_fft) / self.n_fft
        self.conv_real = nn.Conv1d(self.n_fft, self.n_fft, kernel_size=1, bias=False)
        self.conv_imag = nn.Conv1d(self.n_fft, self.n_fft, kernel_size=1, bias=False)
        ifft_window = hann(self.win_length)
        self.conv_real.weight.data = torch.Tensor(
            np.real(self.W * ifft_window[None, :]).T)[:, :, None].contiguous()
        self.conv_imag.weight.data = torch.Tensor(
            np.imag(self.W * ifft_window[None, :]).T)[:, :, None].contiguous()
        ola_window = torch.Tensor(hann(self.win_length) ** 2)
        self.register_buffer('ola_window', ola_window)

    def forward(self, real_stft, imag_stft, length):
        assert real_stft.ndimension() == 4 and imag_stft.ndimension() == 4
        batch_size, _, frames_num, _ = real_stft.shape

        real_stft = real_stft[:, 0, :, :].transpose(1, 2)
        imag_stft = imag_stft[:, 0, :, :].transpose(1, 2)

        full_real_stft, full_imag_stft = self._get_full_stft(real_stft, imag_stft)
        s_real = self.conv_real(full_real_stft) - self.conv_imag(full_imag_stft)
        y = self._overlap_add_divide_window_sum(s_real, frames_num)
        y = self._trim_edges(y, length)
        return y

    def _get_full_stft(self, real_stft, imag_stft):
        full_real_stft = torch.cat((real_stft, torch.flip(real_stft[:, 1 : -1, :], dims=[1])), dim=1)
        full_imag_stft = torch.cat((imag_stft, - torch.flip(imag_stft[:, 1 : -1, :], dims=[1])), dim=1)
        return full_real_stft, full_imag_stft

    def _overlap_add_divide_window_sum(self, s_real, frames_num):
        output_samples = (s_real.shape[-1] - 1) * self.hop_length + self.win_length
        y = torch.nn.functional.fold(input=s_real, output_size=(1, output_samples),
            kernel_size=(1, self.win_length), stride=(1, self.hop_length))
        y = y[:, 0, 0, :]
        ifft_window_sum = self._get_ifft_window(frames_num)
        ifft_window_sum = torch.clamp(ifft_window_sum, 1e-11, np.inf)
        y = y / ifft_window_sum[None, :]
        return y

    def _get_ifft_window(self, frames_num):
        output_samples = (frames_num - 1) * self.hop_length + self.win_length
        window_matrix = self.ola_window[None, :, None].repeat(1, 1, frames_num)
        ifft_window_sum = F.fold(input=window_matrix,
            output_size=(1, output_samples), kernel_size=(1, self.win_length),
            stride=(1, self.hop_length))
        ifft_window_sum = ifft_window_sum.squeeze()
        return ifft_window_sum

    def _trim_edges(self, y, length):
        start = self.n_fft // 2
        y = y[:, start : start + length]
        return y


def magphase(real, imag):
    mag = (real ** 2 + imag ** 2) ** 0.5
    cos = real / torch.clamp(mag, 1e-10, np.inf)
    sin = imag / torch.clamp(mag, 1e-10, np.inf)
    return mag, cos, sin


class MaskSeparator(nn.Module):
    def __init__(self, n_fft=256, hop_length=64):
        super().__init__()
        self.stft = STFT(n_fft, hop_length)
        self.istft = ISTFT(n_fft, hop_length)
        self.mask_net = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 1, 3, padding=1))

    def forward(self, input):
        real, imag = self.stft(input)
        mag, cos, sin = magphase(real, imag)
        mask = torch.sigmoid(self.mask_net(mag))
        out_mag = mag * mask
        return self.istft(out_mag * cos, out_mag * sin, input.shape[1])


def make_model():
    return MaskSeparator()


def example_inputs():
    return (torch.randn(2, 4000),)


def other_inputs():
    return [(torch.randn(3, 5120),), (torch.randn(1, 2731),)]


def probe_inputs():
    return other_inputs()
