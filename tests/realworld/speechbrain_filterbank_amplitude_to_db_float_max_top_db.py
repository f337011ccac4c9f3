"""SpeechBrain Filterbank (log-mel FBANK features): `_amplitude_to_DB` clips the dB values at
`torch.tensor(float(x_db.max()) - self.top_db, ...)`; the `float()` of the batch maximum turns a
tensor into a Python float, so a traced/exported pipeline bakes the clip threshold of the example
batch in as a constant (fixed in the PR that makes the pretrained ASR pipeline traceable by using
`x_db.max() - self.top_db` instead).

Source: https://github.com/speechbrain/speechbrain/pull/603
"""
import math

import torch

CLASS = "constant-tensor"
FAMILY = "scalars"
DYNAMIC = {"spectrogram": {0: "batch", 1: "time"}}
BLIND = "domains-52"


class Filterbank(torch.nn.Module):
    def __init__(
        self,
        n_mels=40,
        log_mel=True,
        f_min=0,
        f_max=8000,
        n_fft=400,
        sample_rate=16000,
        power_spectrogram=2,
        amin=1e-10,
        ref_value=1.0,
        top_db=80.0,
    ):
        super().__init__()
        self.n_mels = n_mels
        self.log_mel = log_mel
        self.f_min = f_min
        self.f_max = f_max
        self.n_fft = n_fft
        self.sample_rate = sample_rate
        self.amin = amin
        self.ref_value = ref_value
        self.top_db = top_db
        self.n_stft = self.n_fft // 2 + 1
        self.db_multiplier = math.log10(max(self.amin, self.ref_value))
        if power_spectrogram == 2:
            self.multiplier = 10
        else:
            self.multiplier = 20

        mel = torch.linspace(
            self._to_mel(self.f_min), self._to_mel(self.f_max), self.n_mels + 2
        )
        hz = self._to_hz(mel)
        band = hz[1:] - hz[:-1]
        self.band = band[:-1]
        self.f_central = hz[1:-1]
        all_freqs = torch.linspace(0, self.sample_rate // 2, self.n_stft)
        self.all_freqs_mat = all_freqs.repeat(self.f_central.shape[0], 1)

    def forward(self, spectrogram):
        f_central_mat = self.f_central.repeat(
            self.all_freqs_mat.shape[1], 1
        ).transpose(0, 1)
        band_mat = self.band.repeat(self.all_freqs_mat.shape[1], 1).transpose(
            0, 1
        )
        fbank_matrix = self._triangular_filters(
            self.all_freqs_mat, f_central_mat, band_mat
        ).to(spectrogram.device)

        fbanks = torch.matmul(spectrogram, fbank_matrix)
        if self.log_mel:
            fbanks = self._amplitude_to_DB(fbanks)
        return fbanks

    @staticmethod
    def _to_mel(hz):
        return 2595 * math.log10(1 + hz / 700)

    @staticmethod
    def _to_hz(mel):
        return 700 * (10 ** (mel / 2595) - 1)

    def _triangular_filters(self, all_freqs, f_central, band):
        slope = (all_freqs - f_central) / band
        left_side = slope + 1.0
        right_side = -slope + 1.0
        zero = torch.zeros(1)
        fbank_matrix = torch.max(
            zero, torch.min(left_side, right_side)
        ).transpose(0, 1)
        return fbank_matrix

    def _amplitude_to_DB(self, x):
        x_db = self.multiplier * torch.log10(torch.clamp(x, min=self.amin))
        x_db -= self.multiplier * self.db_multiplier

        # Setting up dB max
        new_x_db_max = torch.tensor(
            float(x_db.max()) - self.top_db, dtype=x_db.dtype, device=x.device,
        )
        # Clipping to dB max
        x_db = torch.max(x_db, new_x_db_max)

        return x_db


def make_model():
    return Filterbank().eval()


def _power_spec(b, t, scale):
    # power spectrogram with a wide dynamic range, so that the top_db clip matters
    return (torch.rand(b, t, 201) ** 8) * scale


def example_inputs():
    return (_power_spec(2, 101, 1.0),)


def other_inputs():
    return [(_power_spec(3, 77, 1e4),), (_power_spec(1, 130, 1e-3),)]


def probe_inputs():
    return other_inputs()
