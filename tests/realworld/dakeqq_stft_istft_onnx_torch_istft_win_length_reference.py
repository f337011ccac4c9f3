"""Inverse STFT that STFT-ISTFT-ONNX's `istft_B` model replaces: real and imaginary spectrogram
halves are joined with `torch.complex` and resynthesised with `torch.istft` (n_fft=512, hop 160,
a 400-sample Hann window shorter than n_fft). The project's README says `torch.stft` /
`torch.istft` "do not export cleanly to ONNX" and rebuilds ISTFT as a ConvTranspose1d with a
precomputed inverse DFT basis; the code here is the `torch.istft` reference it is checked against.

Source: https://github.com/DakeQQ/STFT-ISTFT-ONNX
"""
import torch

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"real": {2: "signal_len"}, "imag": {2: "signal_len"}}
BLIND = "operators-28"

NFFT = 512
WIN_LENGTH = 400
HOP_LENGTH = 160
WINDOW_TYPE = 'hann'

WINDOW_FUNCTIONS = {
    'bartlett': torch.bartlett_window,
    'blackman': torch.blackman_window,
    'hamming': torch.hamming_window,
    'hann': torch.hann_window,
    'kaiser': lambda L: torch.kaiser_window(L, periodic=True, beta=12.0)
}
DEFAULT_WINDOW_FN = torch.hann_window


class TorchISTFT(torch.nn.Module):
    def forward(self, real, imag):
        pt_audio = torch.istft(
            torch.complex(real, imag),
            n_fft=NFFT, hop_length=HOP_LENGTH, win_length=WIN_LENGTH,
            window=WINDOW_FUNCTIONS.get(WINDOW_TYPE, DEFAULT_WINDOW_FN)(WIN_LENGTH)
        )
        return pt_audio


def make_model():
    return TorchISTFT().eval()


def _spec(n_samples):
    audio = torch.randn(1, n_samples)
    spec = torch.stft(audio, n_fft=NFFT, hop_length=HOP_LENGTH, win_length=WIN_LENGTH,
                      window=torch.hann_window(WIN_LENGTH), center=True, pad_mode='constant',
                      return_complex=True)
    return (spec.real.contiguous(), spec.imag.contiguous())


def example_inputs():
    return _spec(16000)          # (1, 257, 101) each


def other_inputs():
    return [_spec(24000), _spec(8000)]


def probe_inputs():
    return other_inputs()
