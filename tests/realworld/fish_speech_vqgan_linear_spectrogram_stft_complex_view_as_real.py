"""fish-speech VQGAN encoder front end: LinearSpectrogram reflect-pads the waveform, calls
`torch.stft(..., return_complex=True)` and then `torch.view_as_real(spec)` before the magnitude
`sqrt(spec.pow(2).sum(-1) + 1e-6)`; LogMelSpectrogram applies a mel filterbank and log. PR #831 ("add onnx export
code for vqgan encoder") made `return_complex` switchable so the exporter never sees the complex STFT. The code
BEFORE the PR is the case (torchaudio's melscale_fbanks replaced by a fixed non-negative buffer).

Source: https://github.com/fishaudio/fish-speech/pull/831
"""
import torch
from torch import Tensor, nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "samples"}}
BLIND = "operators-47"


class LinearSpectrogram(nn.Module):
    def __init__(
        self,
        n_fft=2048,
        win_length=2048,
        hop_length=512,
        center=False,
        mode="pow2_sqrt",
    ):
        super().__init__()

        self.n_fft = n_fft
        self.win_length = win_length
        self.hop_length = hop_length
        self.center = center
        self.mode = mode

        self.register_buffer("window", torch.hann_window(win_length), persistent=False)

    def forward(self, y: Tensor) -> Tensor:
        if y.ndim == 3:
            y = y.squeeze(1)

        y = torch.nn.functional.pad(
            y.unsqueeze(1),
            (
                (self.win_length - self.hop_length) // 2,
                (self.win_length - self.hop_length + 1) // 2,
            ),
            mode="reflect",
        ).squeeze(1)

        spec = torch.stft(
            y,
            self.n_fft,
            hop_length=self.hop_length,
            win_length=self.win_length,
            window=self.window,
            center=self.center,
            pad_mode="reflect",
            normalized=False,
            onesided=True,
            return_complex=True,
        )

        spec = torch.view_as_real(spec)

        if self.mode == "pow2_sqrt":
            spec = torch.sqrt(spec.pow(2).sum(-1) + 1e-6)

        return spec


class LogMelSpectrogram(nn.Module):
    def __init__(self, n_fft=256, win_length=256, hop_length=64, n_mels=32, center=False):
        super().__init__()
        self.n_fft = n_fft
        self.spectrogram = LinearSpectrogram(n_fft, win_length, hop_length, center)
        # stands in for torchaudio.functional.melscale_fbanks(n_freqs=n_fft // 2 + 1, ...)
        self.register_buffer("fb", torch.rand(n_fft // 2 + 1, n_mels) / n_mels, persistent=False)

    def compress(self, x: Tensor) -> Tensor:
        return torch.log(torch.clamp(x, min=1e-5))

    def apply_mel_scale(self, x: Tensor) -> Tensor:
        return torch.matmul(x.transpose(-1, -2), self.fb).transpose(-1, -2)

    def forward(self, x: Tensor) -> Tensor:
        linear = self.spectrogram(x)
        x = self.apply_mel_scale(linear)
        x = self.compress(x)
        return x


def make_model():
    return LogMelSpectrogram().eval()


def example_inputs():
    return (torch.randn(2, 1, 4096),)


def other_inputs():
    return [(torch.randn(3, 1, 5120),), (torch.randn(1, 1, 2500),)]


def probe_inputs():
    return other_inputs()
