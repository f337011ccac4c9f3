"""Audio front end using `torchaudio.transforms.Spectrogram(n_fft, win_length, hop_length, pad_mode="reflect",
normalized, onesided=True, power=1)` (torchaudio's functional code copied in: `torch.stft(..., return_complex=True)`
then `.abs()`); the commenter's ONNX conversion fails with "STFT does not currently support complex types".

Source: https://github.com/pytorch/pytorch/issues/112844
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "samples"}}
BLIND = "domains-3"


def spectrogram(waveform, pad, window, n_fft, hop_length, win_length, power, normalized,
                center=True, pad_mode="reflect", onesided=True):
    if pad > 0:
        waveform = torch.nn.functional.pad(waveform, (pad, pad), "constant")
    # pack batch
    shape = waveform.size()
    waveform = waveform.reshape(-1, shape[-1])
    spec_f = torch.stft(input=waveform, n_fft=n_fft, hop_length=hop_length, win_length=win_length,
                        window=window, center=center, pad_mode=pad_mode, normalized=False,
                        onesided=onesided, return_complex=True)
    # unpack batch
    spec_f = spec_f.reshape(shape[:-1] + spec_f.shape[-2:])
    if normalized:
        spec_f /= window.pow(2.0).sum().sqrt()
    if power is not None:
        if power == 1.0:
            return spec_f.abs()
        return spec_f.abs().pow(power)
    return spec_f


class Spectrogram(nn.Module):
    def __init__(self, n_fft=400, win_length=None, hop_length=None, pad=0, power=2.0,
                 normalized=False, pad_mode="reflect", onesided=True):
        super().__init__()
        self.n_fft = n_fft
        self.win_length = win_length if win_length is not None else n_fft
        self.hop_length = hop_length if hop_length is not None else self.win_length // 2
        self.register_buffer("window", torch.hann_window(self.win_length))
        self.pad = pad
        self.power = power
        self.normalized = normalized
        self.pad_mode = pad_mode
        self.onesided = onesided

    def forward(self, waveform):
        return spectrogram(waveform, self.pad, self.window, self.n_fft, self.hop_length, self.win_length,
                           self.power, self.normalized, True, self.pad_mode, self.onesided)


class AudioClassifierFrontEnd(nn.Module):
    def __init__(self, n_fft=512, win_length=512, hop_length=256, normalized=True):
        super().__init__()
        self.n_fft = n_fft
        self.win_length = win_length
        self.hop_length = hop_length
        self.normalized = normalized
        self.spectrogram_t = Spectrogram(
            n_fft=self.n_fft,
            win_length=self.win_length,
            hop_length=self.hop_length,
            pad_mode="reflect",
            normalized=self.normalized,
            onesided=True,
            power=1,
        )
        self.conv = nn.Conv2d(1, 4, 3, padding=1)

    def forward(self, x):
        spec = self.spectrogram_t(x)
        return self.conv(torch.log1p(spec).unsqueeze(1))


def make_model():
    return AudioClassifierFrontEnd().eval()


def example_inputs():
    return (torch.randn(2, 8000),)


def other_inputs():
    return [(torch.randn(3, 12000),), (torch.randn(1, 4000),)]


def probe_inputs():
    return other_inputs()
