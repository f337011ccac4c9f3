"""MB-iSTFT-VITS2 text-to-speech: the multi-band iSTFT generator turns its predicted magnitude/phase
into a complex spectrogram with `magnitude * torch.exp(phase * 1j)` (`TorchSTFT.inverse`) before
`torch.istft` and PQMF synthesis; exporting the model fails with "RuntimeError: Unknown number type:
complex" (the Python complex scalar `1j`). (Text encoder/flow trimmed: the generator decodes a latent.)

Source: https://github.com/FENRlR/MB-iSTFT-VITS2/issues/3
"""
import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn import Conv1d, ConvTranspose1d
from torch.nn.utils import weight_norm

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "frames"}}
BLIND = "operators-5"

LRELU_SLOPE = 0.1


def get_padding(kernel_size, dilation=1):
    return int((kernel_size * dilation - dilation) / 2)


class ResBlock1(nn.Module):
    def __init__(self, channels, kernel_size=3, dilation=(1, 3, 5)):
        super().__init__()
        self.convs1 = nn.ModuleList([
            weight_norm(Conv1d(channels, channels, kernel_size, 1, dilation=d, padding=get_padding(kernel_size, d)))
            for d in dilation])
        self.convs2 = nn.ModuleList([
            weight_norm(Conv1d(channels, channels, kernel_size, 1, dilation=1, padding=get_padding(kernel_size, 1)))
            for _ in dilation])

    def forward(self, x, x_mask=None):
        for c1, c2 in zip(self.convs1, self.convs2):
            xt = F.leaky_relu(x, LRELU_SLOPE)
            xt = c1(xt)
            xt = F.leaky_relu(xt, LRELU_SLOPE)
            xt = c2(xt)
            x = xt + x
        return x


def design_prototype_filter(taps=62, cutoff_ratio=0.15, beta=9.0):
    omega_c = np.pi * cutoff_ratio
    with np.errstate(invalid='ignore'):
        h_i = np.sin(omega_c * (np.arange(taps + 1) - 0.5 * taps)) \
            / (np.pi * (np.arange(taps + 1) - 0.5 * taps))
    h_i[taps // 2] = np.cos(0) * cutoff_ratio  # fix nan due to indeterminate form
    w = np.kaiser(taps + 1, beta)  # scipy.signal.windows.kaiser in the original
    h = h_i * w
    return h


class PQMF(torch.nn.Module):
    def __init__(self, device, subbands=4, taps=62, cutoff_ratio=0.15, beta=9.0):
        super(PQMF, self).__init__()
        h_proto = design_prototype_filter(taps, cutoff_ratio, beta)
        h_synthesis = np.zeros((subbands, len(h_proto)))
        for k in range(subbands):
            h_synthesis[k] = 2 * h_proto * np.cos(
                (2 * k + 1) * (np.pi / (2 * subbands)) *
                (np.arange(taps + 1) - ((taps - 1) / 2)) -
                (-1) ** k * np.pi / 4)
        synthesis_filter = torch.from_numpy(h_synthesis).float().unsqueeze(0).to(device)
        self.register_buffer("synthesis_filter", synthesis_filter)
        updown_filter = torch.zeros((subbands, subbands, subbands)).float().to(device)
        for k in range(subbands):
            updown_filter[k, k, 0] = 1.0
        self.register_buffer("updown_filter", updown_filter)
        self.subbands = subbands
        self.pad_fn = torch.nn.ConstantPad1d(taps // 2, 0.0)

    def synthesis(self, x):
        x = F.conv_transpose1d(x, self.updown_filter * self.subbands, stride=self.subbands)
        return F.conv1d(self.pad_fn(x), self.synthesis_filter)


class TorchSTFT(torch.nn.Module):
    def __init__(self, filter_length=800, hop_length=200, win_length=800, window='hann'):
        super().__init__()
        self.filter_length = filter_length
        self.hop_length = hop_length
        self.win_length = win_length
        # scipy.signal.get_window('hann', win_length, fftbins=True)
        self.window = torch.from_numpy(
            (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(win_length) / win_length)).astype(np.float32))

    def inverse(self, magnitude, phase):
        inverse_transform = torch.istft(
            magnitude * torch.exp(phase * 1j),
            self.filter_length, self.hop_length, self.win_length, window=self.window.to(magnitude.device))
        return inverse_transform.unsqueeze(-2)  # unsqueeze to stay consistent with conv_transpose1d implementation


class Multiband_iSTFT_Generator(torch.nn.Module):
    def __init__(self, initial_channel=32, resblock_kernel_sizes=(3, 7), resblock_dilation_sizes=((1, 3, 5), (1, 3, 5)),
                 upsample_rates=(4, 4), upsample_initial_channel=64, upsample_kernel_sizes=(16, 16),
                 gen_istft_n_fft=16, gen_istft_hop_size=4, subbands=4):
        super(Multiband_iSTFT_Generator, self).__init__()
        self.subbands = subbands
        self.num_kernels = len(resblock_kernel_sizes)
        self.num_upsamples = len(upsample_rates)
        self.conv_pre = weight_norm(Conv1d(initial_channel, upsample_initial_channel, 7, 1, padding=3))
        self.ups = nn.ModuleList()
        for i, (u, k) in enumerate(zip(upsample_rates, upsample_kernel_sizes)):
            self.ups.append(weight_norm(
                ConvTranspose1d(upsample_initial_channel // (2 ** i), upsample_initial_channel // (2 ** (i + 1)),
                                k, u, padding=(k - u) // 2)))
        self.resblocks = nn.ModuleList()
        for i in range(len(self.ups)):
            ch = upsample_initial_channel // (2 ** (i + 1))
            for j, (k, d) in enumerate(zip(resblock_kernel_sizes, resblock_dilation_sizes)):
                self.resblocks.append(ResBlock1(ch, k, d))
        self.post_n_fft = gen_istft_n_fft
        self.reflection_pad = torch.nn.ReflectionPad1d((1, 0))
        self.subband_conv_post = weight_norm(Conv1d(ch, self.subbands * (self.post_n_fft + 2), 7, 1, padding=3))
        self.gen_istft_n_fft = gen_istft_n_fft
        self.gen_istft_hop_size = gen_istft_hop_size
        self.stft = TorchSTFT(filter_length=self.gen_istft_n_fft, hop_length=self.gen_istft_hop_size,
                              win_length=self.gen_istft_n_fft)

    def forward(self, x, g=None):
        stft = self.stft
        pqmf = PQMF(x.device)
        x = self.conv_pre(x)  # [B, ch, length]
        for i in range(self.num_upsamples):
            x = F.leaky_relu(x, LRELU_SLOPE)
            x = self.ups[i](x)
            xs = None
            for j in range(self.num_kernels):
                if xs is None:
                    xs = self.resblocks[i * self.num_kernels + j](x)
                else:
                    xs += self.resblocks[i * self.num_kernels + j](x)
            x = xs / self.num_kernels
        x = F.leaky_relu(x)
        x = self.reflection_pad(x)
        x = self.subband_conv_post(x)
        x = torch.reshape(x, (x.shape[0], self.subbands, x.shape[1] // self.subbands, x.shape[-1]))
        spec = torch.exp(x[:, :, :self.post_n_fft // 2 + 1, :])
        phase = math.pi * torch.sin(x[:, :, self.post_n_fft // 2 + 1:, :])
        y_mb_hat = stft.inverse(
            torch.reshape(spec, (spec.shape[0] * self.subbands, self.gen_istft_n_fft // 2 + 1, spec.shape[-1])),
            torch.reshape(phase, (phase.shape[0] * self.subbands, self.gen_istft_n_fft // 2 + 1, phase.shape[-1])))
        y_mb_hat = torch.reshape(y_mb_hat, (x.shape[0], self.subbands, 1, y_mb_hat.shape[-1]))
        y_mb_hat = y_mb_hat.squeeze(-2)
        y_g_hat = pqmf.synthesis(y_mb_hat)
        return y_g_hat, y_mb_hat


def make_model():
    return Multiband_iSTFT_Generator().eval()


def example_inputs():
    return (torch.randn(1, 32, 40) * 0.3,)


def other_inputs():
    return [(torch.randn(2, 32, 57) * 0.3,), (torch.randn(3, 32, 23) * 0.3,)]


def probe_inputs():
    return other_inputs()
