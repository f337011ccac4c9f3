"""Speech front-end calling `signals.stft(n_fft=512, hop_length=160, win_length=320,
return_complex=True, window=self._window, pad_mode="constant")` on [B, T] audio; with dynamic batch and
length, `_fft_r2c` does not support dynamic shapes and the export fails (magnitude taken for the
downstream features).

Source: https://github.com/pytorch/pytorch/issues/135087
"""
import torch

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"signals": {0: "dim1", 1: "dim2"}}
BLIND = "operators-1"


class STFTModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self._window = torch.hann_window(window_length=320)

    def forward(self, signals: torch.Tensor) -> torch.Tensor:
        x = signals.stft(
            n_fft=512,
            hop_length=160,
            win_length=320,
            return_complex=True,
            window=self._window,
            pad_mode="constant",
        )
        return x.abs()


def make_model():
    return STFTModel()


def example_inputs():
    return (torch.randn([2, 16000]),)


def other_inputs():
    return [(torch.randn([3, 8000]),), (torch.randn([1, 12345]),)]


def probe_inputs():
    return other_inputs()
