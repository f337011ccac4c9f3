"""noisereduce's `TorchGate` spectral-gating denoiser: `torch.stft(..., return_complex=True)`, a
stationary noise mask from `torch.std_mean` of the dB spectrogram, 2-D mask smoothing, the complex
spectrogram times the mask, then `torch.istft` back to audio. The user exporting it to ONNX for a
Raspberry Pi wake-word pipeline got export errors because PyTorch could not export `stft`/`istft`.
(TorchGate and its utils copied inline, trimmed to the default stationary path.)

Source: https://github.com/timsainb/noisereduce/issues/93
"""
from typing import Optional, Union

import torch
from torch.nn.functional import conv2d

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "samples"}}
BLIND = "operators-9"


@torch.no_grad()
def amp_to_db(x: torch.Tensor, eps=torch.finfo(torch.float32).eps) -> torch.Tensor:
    return torch.log10(x.abs() + eps)


@torch.no_grad()
def linspace(start, stop, num: int = 50, endpoint: bool = True, **kwargs) -> torch.Tensor:
    if endpoint:
        return torch.linspace(start, stop, num, **kwargs)
    else:
        return torch.linspace(start, stop, num + 1, **kwargs)[:-1]


class TorchGate(torch.nn.Module):
    @torch.no_grad()
    def __init__(self, sr: int, nonstationary: bool = False, n_std_thresh_stationary: float = 1.5,
                 prop_decrease: float = 1.0, n_fft: int = 1024, win_length: int = None,
                 hop_length: int = None, freq_mask_smooth_hz: float = 500, time_mask_smooth_ms: float = 50):
        super().__init__()
        self.sr = sr
        self.nonstationary = nonstationary
        self.prop_decrease = prop_decrease
        self.n_fft = n_fft
        self.win_length = self.n_fft if win_length is None else win_length
        self.hop_length = self.win_length // 4 if hop_length is None else hop_length
        self.n_std_thresh_stationary = n_std_thresh_stationary
        self.freq_mask_smooth_hz = freq_mask_smooth_hz
        self.time_mask_smooth_ms = time_mask_smooth_ms
        self.register_buffer("smoothing_filter", self._generate_mask_smoothing_filter())

    @torch.no_grad()
    def _generate_mask_smoothing_filter(self) -> Union[torch.Tensor, None]:
        n_grad_freq = int(self.freq_mask_smooth_hz / (self.sr / (self.n_fft / 2)))
        n_grad_time = int(self.time_mask_smooth_ms / ((self.hop_length / self.sr) * 1000))
        v_f = torch.cat([linspace(0, 1, n_grad_freq + 1, endpoint=False), linspace(1, 0, n_grad_freq + 2)])[1:-1]
        v_t = torch.cat([linspace(0, 1, n_grad_time + 1, endpoint=False), linspace(1, 0, n_grad_time + 2)])[1:-1]
        smoothing_filter = torch.outer(v_f, v_t).unsqueeze(0).unsqueeze(0)
        return smoothing_filter / smoothing_filter.sum()

    @torch.no_grad()
    def _stationary_mask(self, X_db: torch.Tensor, xn: Optional[torch.Tensor] = None) -> torch.Tensor:
        XN_db = X_db
        # calculate mean and standard deviation along the frequency axis
        std_freq_noise, mean_freq_noise = torch.std_mean(XN_db, dim=-1)
        noise_thresh = mean_freq_noise + std_freq_noise * self.n_std_thresh_stationary
        sig_mask = torch.gt(X_db, noise_thresh.unsqueeze(2))
        return sig_mask

    def forward(self, x: torch.Tensor, xn: Optional[torch.Tensor] = None) -> torch.Tensor:
        assert x.ndim == 2
        # Compute short-time Fourier transform (STFT)
        X = torch.stft(
            x,
            n_fft=self.n_fft,
            hop_length=self.hop_length,
            win_length=self.win_length,
            return_complex=True,
            pad_mode="constant",
            center=True,
            window=torch.hann_window(self.win_length).to(x.device),
        )
        sig_mask = self._stationary_mask(amp_to_db(X), xn)
        # Propagate decrease in signal power
        sig_mask = self.prop_decrease * (sig_mask * 1.0 - 1.0) + 1.0
        # Smooth signal mask with 2D convolution
        if self.smoothing_filter is not None:
            sig_mask = conv2d(sig_mask.unsqueeze(1), self.smoothing_filter.to(sig_mask.dtype), padding="same")
        # Apply signal mask to STFT magnitude and phase components
        Y = X * sig_mask.squeeze(1)
        # Inverse STFT to obtain time-domain signal
        y = torch.istft(
            Y,
            n_fft=self.n_fft,
            hop_length=self.hop_length,
            win_length=self.win_length,
            center=True,
            window=torch.hann_window(self.win_length).to(Y.device),
        )
        return y.to(dtype=x.dtype)


def make_model():
    # 16 kHz wake-word front end on 2 s windows, 16 ms FFT frames
    return TorchGate(sr=16000, n_fft=256).eval()


def example_inputs():
    return (torch.randn(2, 32000),)


def other_inputs():
    return [(torch.randn(3, 24000),), (torch.randn(1, 16000),)]


def probe_inputs():
    return other_inputs()
