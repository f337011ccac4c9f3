"""RVC `models_onnx.py` NSF source: `SineGen.forward(f0, upp)` builds the harmonic buffer in place
(`f0_buf[:, :, 0] = ...`, a loop over `np.arange(self.harmonic_num)`), cumsums the phase, upsamples with
`F.interpolate(..., scale_factor=upp)` where `upp = np.prod(upsample_rates)` is a NumPy integer, and masks
`cumsum_shift[:, 1:, :] = tmp_over_one_idx * -1.0`; the issue says exporting it with its dynamic control flow
errors easily and the static-graph export gives outputs that differ from the torch model.
(Deterministic settings: harmonic_num=0 so `rand_ini` is all zero, noise_std=0 and voiced f0 so the noise is 0.)

Source: https://github.com/RVC-Project/Retrieval-based-Voice-Conversion-WebUI/issues/2439
"""
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "indexing"
FAMILY = "indexing"
DYNAMIC = {"x": {0: "batch", 2: "frames"}, "f0": {0: "batch", 1: "frames"}}
BLIND = "domains-31"


class SineGen(torch.nn.Module):
    def __init__(self, samp_rate, harmonic_num=0, sine_amp=0.1, noise_std=0.003, voiced_threshold=0,
                 flag_for_pulse=False):
        super(SineGen, self).__init__()
        self.sine_amp = sine_amp
        self.noise_std = noise_std
        self.harmonic_num = harmonic_num
        self.dim = self.harmonic_num + 1
        self.sampling_rate = samp_rate
        self.voiced_threshold = voiced_threshold

    def _f02uv(self, f0):
        uv = torch.ones_like(f0)
        uv = uv * (f0 > self.voiced_threshold)
        return uv

    def forward(self, f0, upp):
        with torch.no_grad():
            f0 = f0[:, None].transpose(1, 2)
            f0_buf = torch.zeros(f0.shape[0], f0.shape[1], self.dim, device=f0.device)
            # fundamental component
            f0_buf[:, :, 0] = f0[:, :, 0]
            for idx in np.arange(self.harmonic_num):
                f0_buf[:, :, idx + 1] = f0_buf[:, :, 0] * (idx + 2)
            rad_values = (f0_buf / self.sampling_rate) % 1
            rand_ini = torch.rand(f0_buf.shape[0], f0_buf.shape[2], device=f0_buf.device)
            rand_ini[:, 0] = 0
            rad_values[:, 0, :] = rad_values[:, 0, :] + rand_ini
            tmp_over_one = torch.cumsum(rad_values, 1)
            tmp_over_one *= upp
            tmp_over_one = F.interpolate(
                tmp_over_one.transpose(2, 1), scale_factor=upp, mode="linear", align_corners=True,
            ).transpose(2, 1)
            rad_values = F.interpolate(rad_values.transpose(2, 1), scale_factor=upp, mode="nearest").transpose(2, 1)
            tmp_over_one %= 1
            tmp_over_one_idx = (tmp_over_one[:, 1:, :] - tmp_over_one[:, :-1, :]) < 0
            cumsum_shift = torch.zeros_like(rad_values)
            cumsum_shift[:, 1:, :] = tmp_over_one_idx * -1.0
            sine_waves = torch.sin(torch.cumsum(rad_values + cumsum_shift, dim=1) * 2 * np.pi)
            sine_waves = sine_waves * self.sine_amp
            uv = self._f02uv(f0)
            uv = F.interpolate(uv.transpose(2, 1), scale_factor=upp, mode="nearest").transpose(2, 1)
            noise_amp = uv * self.noise_std + (1 - uv) * self.sine_amp / 3
            noise = noise_amp * torch.randn_like(sine_waves)
            sine_waves = sine_waves * uv + noise
        return sine_waves, uv, noise


class SourceModuleHnNSF(torch.nn.Module):
    def __init__(self, sampling_rate, harmonic_num=0, sine_amp=0.1, add_noise_std=0.0, voiced_threshod=0):
        super(SourceModuleHnNSF, self).__init__()
        self.l_sin_gen = SineGen(sampling_rate, harmonic_num, sine_amp, add_noise_std, voiced_threshod)
        self.l_linear = torch.nn.Linear(harmonic_num + 1, 1)
        self.l_tanh = torch.nn.Tanh()

    def forward(self, x, upp=None):
        sine_wavs, uv, _ = self.l_sin_gen(x, upp)
        sine_merge = self.l_tanh(self.l_linear(sine_wavs))
        return sine_merge, None, None


class GeneratorNSF(torch.nn.Module):
    def __init__(self, initial_channel=16, upsample_rates=(4, 4), upsample_initial_channel=32, sr=16000):
        super(GeneratorNSF, self).__init__()
        self.m_source = SourceModuleHnNSF(sampling_rate=sr, harmonic_num=0)
        self.conv_pre = nn.Conv1d(initial_channel, upsample_initial_channel, 7, 1, padding=3)
        self.ups = nn.ModuleList()
        self.noise_convs = nn.ModuleList()
        for i, u in enumerate(upsample_rates):
            c_cur = upsample_initial_channel // (2 ** (i + 1))
            self.ups.append(nn.ConvTranspose1d(upsample_initial_channel // (2 ** i), c_cur, 2 * u, u, padding=u // 2))
            if i + 1 < len(upsample_rates):
                stride_f0 = int(np.prod(upsample_rates[i + 1:]))
                self.noise_convs.append(nn.Conv1d(1, c_cur, kernel_size=stride_f0 * 2, stride=stride_f0,
                                                  padding=stride_f0 // 2))
            else:
                self.noise_convs.append(nn.Conv1d(1, c_cur, kernel_size=1))
        self.conv_post = nn.Conv1d(c_cur, 1, 7, 1, padding=3, bias=False)
        self.upp = np.prod(upsample_rates)

    def forward(self, x, f0):
        har_source, noi_source, uv = self.m_source(f0, self.upp)
        har_source = har_source.transpose(1, 2)
        x = self.conv_pre(x)
        for i in range(len(self.ups)):
            x = F.leaky_relu(x, 0.1)
            x = self.ups[i](x)
            x = x + self.noise_convs[i](har_source)
        x = self.conv_post(F.leaky_relu(x))
        return torch.tanh(x)


def make_model():
    return GeneratorNSF().eval()


def _f0(b, t):
    return 100.0 + 200.0 * torch.rand(b, t)


def example_inputs():
    return (torch.randn(1, 16, 20), _f0(1, 20))


def other_inputs():
    return [(torch.randn(2, 16, 33), _f0(2, 33)), (torch.randn(1, 16, 11), _f0(1, 11))]


def probe_inputs():
    return other_inputs()
