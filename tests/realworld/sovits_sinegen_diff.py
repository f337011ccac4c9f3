"""so-vits-svc 4.0 NSF-HiFiGAN source module: SineGen wraps the cumulative phase with
`tmp_over_one_idx = torch.diff(tmp_over_one, dim=1) < 0` before taking the sines; onnx_export.py
stops with "Exporting the operator 'aten::diff' to ONNX opset version 16 is not supported".
(The random initial phase and the additive noise of SineGen are left out so outputs are
deterministic.)

Source: https://github.com/innnky/so-vits-svc/issues/27
"""
import numpy as np
import torch

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"f0": {0: "batch", 1: "frames"}}
BLIND = "operators-2"


class SineGen(torch.nn.Module):
    def __init__(self, samp_rate, harmonic_num=0,
                 sine_amp=0.1, noise_std=0.003,
                 voiced_threshold=0,
                 flag_for_pulse=False):
        super(SineGen, self).__init__()
        self.sine_amp = sine_amp
        self.noise_std = noise_std
        self.harmonic_num = harmonic_num
        self.dim = self.harmonic_num + 1
        self.sampling_rate = samp_rate
        self.voiced_threshold = voiced_threshold
        self.flag_for_pulse = flag_for_pulse

    def _f02uv(self, f0):
        # generate uv signal
        uv = (f0 > self.voiced_threshold).type(torch.float32)
        return uv

    def _f02sine(self, f0_values):
        # convert to F0 in rad. The interger part n can be ignored
        # because 2 * np.pi * n doesn't affect phase
        rad_values = (f0_values / self.sampling_rate) % 1

        # To prevent torch.cumsum numerical overflow,
        # it is necessary to add -1 whenever \sum_k=1^n rad_value_k > 1.
        tmp_over_one = torch.cumsum(rad_values, 1) % 1
        tmp_over_one_idx = (torch.diff(tmp_over_one, dim=1)) < 0
        cumsum_shift = torch.zeros_like(rad_values)
        cumsum_shift[:, 1:, :] = tmp_over_one_idx * -1.0

        sines = torch.sin(torch.cumsum(rad_values + cumsum_shift, dim=1) * 2 * np.pi)
        return sines

    def forward(self, f0):
        with torch.no_grad():
            # fundamental component
            fn = torch.multiply(f0, torch.FloatTensor([[range(1, self.harmonic_num + 2)]]).to(f0.device))
            # generate sine waveforms
            sine_waves = self._f02sine(fn) * self.sine_amp
            # generate uv signal
            uv = self._f02uv(f0)
            sine_waves = sine_waves * uv
        return sine_waves, uv


class SourceModuleHnNSF(torch.nn.Module):
    def __init__(self, sampling_rate=44100, harmonic_num=8, sine_amp=0.1,
                 add_noise_std=0.003, voiced_threshod=0):
        super(SourceModuleHnNSF, self).__init__()
        self.l_sin_gen = SineGen(sampling_rate, harmonic_num,
                                 sine_amp, add_noise_std, voiced_threshod)
        self.l_linear = torch.nn.Linear(harmonic_num + 1, 1)
        self.l_tanh = torch.nn.Tanh()

    def forward(self, f0):
        sine_wavs, uv = self.l_sin_gen(f0)
        sine_merge = self.l_tanh(self.l_linear(sine_wavs))
        return sine_merge, uv


def make_model():
    return SourceModuleHnNSF()


def _f0(b, t):
    f0 = 100 + 300 * torch.rand(b, t, 1)
    f0[:, : t // 5] = 0.0  # unvoiced head
    return f0


def example_inputs():
    return (_f0(1, 2048),)


def other_inputs():
    return [(_f0(2, 1500),), (_f0(3, 777),)]


def probe_inputs():
    return other_inputs()
