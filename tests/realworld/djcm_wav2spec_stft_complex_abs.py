"""DJCM singing-pitch estimator (the RVC-fork port): `Wav2Spec` takes the magnitude spectrogram with
`torch.stft(..., return_complex=True)` and `torch.abs(stft_out)`. The repo's ONNX export script notes
"# ONNX does not support ComplexFloat" and monkey-patches `to_spec.forward` to `return_complex=False`
with a hand-written sqrt(re^2 + im^2); the model before that patch is this one.

Source: https://github.com/PhamHuynhAnh16/DJCM/blob/65bb5a7d62712c90142a72734dd047386c848fff/export_onnx.py
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"audio": {2: "samples"}}   # export script: dynamic_axes={'audio': [2], 'f0': [1]}
BLIND = "operators-32"

SAMPLE_RATE = 16000
N_CLASS = 360
WINDOW_LENGTH = 2048


class Wav2Spec(nn.Module):
    def __init__(self, hop_length, window_size):
        super(Wav2Spec, self).__init__()
        self.hop_length = hop_length
        self.window_size = window_size
        self.n_fft = window_size
        self.register_buffer("window", torch.hann_window(window_size), persistent=False)

    def forward(self, audio):
        # Replaced torchlibrosa module with torch.stft.
        bs, c, segment_samples = audio.shape
        audio = audio.reshape(bs * c, segment_samples)
        stft_out = torch.stft(audio, n_fft=self.n_fft, hop_length=self.hop_length, win_length=self.window_size,
                              window=self.window, return_complex=True, center=True, pad_mode='reflect')

        mag = torch.abs(stft_out).permute(0, 2, 1)
        mag = mag.reshape(bs, c, mag.shape[1], mag.shape[2])
        return mag


class DJCM(nn.Module):
    """F0 shortcode path of DJCM: to_spec -> bn over frequency -> pitch encoder/decoder (trimmed)."""

    def __init__(self, in_channels=1, hop_length=10):
        super(DJCM, self).__init__()
        self.to_spec = Wav2Spec(int(hop_length / 1000 * SAMPLE_RATE), WINDOW_LENGTH)
        self.bn = nn.BatchNorm2d(WINDOW_LENGTH // 2 + 1, momentum=0.01)
        self.pe_encoder = nn.Sequential(
            nn.Conv2d(in_channels, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.AvgPool2d((1, 16)))
        self.pe_decoder = nn.Linear(8 * (WINDOW_LENGTH // 2) // 16, N_CLASS)

    def forward(self, audio):
        spec_m = self.to_spec(audio)
        x = self.bn(spec_m.transpose(1, 3)).transpose(1, 3)[..., :-1]
        x = self.pe_encoder(x)                      # B, 8, T, 64
        x = x.permute(0, 2, 1, 3).flatten(2)        # B, T, 512
        return torch.sigmoid(self.pe_decoder(x))    # B, T, 360 pitch salience


def make_model():
    return DJCM().eval()


def example_inputs():
    return (torch.randn(1, 1, 16384).clip(min=-1., max=1.),)


def other_inputs():
    return [(torch.randn(1, 1, 12000).clip(min=-1., max=1.),),
            (torch.randn(1, 1, 20480).clip(min=-1., max=1.),)]


def probe_inputs():
    return other_inputs()
