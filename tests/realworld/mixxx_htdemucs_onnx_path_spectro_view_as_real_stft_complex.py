"""Mixxx's ONNX-exportable HTDemucs fork (music source separation), spectral encoder input: on the
`onnx_exportable` path `spectro` computed `th.view_as_real(th.stft(..., normalized=True,
center=True, return_complex=True, pad_mode='reflect'))` so the rest of the model could stay on real
[..., 2] tensors (`_magnitude` with cac moves real/imag into channels). The PR replaces the complex
`th.stft` with a conv1d cos/sin-kernel `STFT_Process` "avoiding the use of complex numbers", because
the complex STFT did not export. This is the code before it (frequency-branch input only).

Source: https://github.com/mixxxdj/demucs/pull/3
"""
import torch
import torch as th
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"mix": {0: "batch", 2: "samples"}}
BLIND = "operators-63"


def spectro(x, n_fft=512, hop_length=None, pad=0, onnx_exportable=False):
    *other, length = x.shape
    x = x.reshape(-1, length)
    if onnx_exportable:
        z = th.view_as_real(
            th.stft(x,
                    n_fft * (1 + pad),
                    hop_length or n_fft // 4,
                    window=th.hann_window(n_fft).to(x),
                    win_length=n_fft,
                    normalized=True,
                    center=True,
                    return_complex=True,
                    pad_mode='reflect')
        )   # Now z will return 1 more dimension - last dimension will be 2 now
        _, freqs, frame, dim = z.shape
        assert dim == 2, "STFT should return complex numbers"
        return z.view(*other, freqs, frame, dim)
    z = th.stft(x, n_fft * (1 + pad), hop_length or n_fft // 4, window=th.hann_window(n_fft).to(x),
                win_length=n_fft, normalized=True, center=True, return_complex=True, pad_mode='reflect')
    _, freqs, frame = z.shape
    return z.view(*other, freqs, frame)


class HTDemucsFreqInput(nn.Module):
    def __init__(self, nfft=64, audio_channels=2, channels=8):
        super().__init__()
        self.nfft = nfft
        self.hop_length = nfft // 4
        self.onnx_exportable = True
        self.cac = True
        # first frequency-branch encoder layer (HEncLayer conv over [B, C*2, Fr, T])
        self.encoder0 = nn.Conv2d(2 * audio_channels, channels, kernel_size=(8, 1), stride=(4, 1), padding=(2, 0))

    def _spec(self, x):
        hl = self.hop_length
        nfft = self.nfft
        assert hl == nfft // 4
        # (HTDemucs' extra re-padding to a multiple of hop_length and the frame trim are left out)
        z = spectro(x, nfft, hl, onnx_exportable=True)[..., :-1, :, :]
        return z

    def _magnitude(self, z):
        B, C, Fr, T, dim = z.shape
        m = z.permute(0, 1, 4, 2, 3)
        return m.reshape(B, C * 2, Fr, T)

    def forward(self, mix):
        z = self._spec(mix)
        mag = self._magnitude(z)
        mean = mag.mean(dim=(1, 2, 3), keepdim=True)
        std = mag.std(dim=(1, 2, 3), keepdim=True)
        mag = (mag - mean) / (1e-5 + std)
        return self.encoder0(mag)


def make_model():
    return HTDemucsFreqInput().eval()


def example_inputs():
    return (torch.randn(2, 2, 480),)


def other_inputs():
    return [(torch.randn(3, 2, 640),), (torch.randn(1, 2, 400),)]


def probe_inputs():
    return other_inputs()
