"""BS-RoFormer (lucidrains bs-roformer 1.2.4) vocal separator: after the complex mask multiply the
model re-pads the frequency range on the complex spectrogram, `F.pad(stft_repr, (0, 0,
*self.freq_pad))`, before torch.istft. The report (torch 2.13.0+cpu) finds the dynamo exporter passes
torch.export and decompositions but fails ONNX translation with a single "DispatchError: No ONNX
function found for aten.pad. No decompositions registered for the complex-valued input"; the legacy
exporter fails earlier with "STFT does not currently support complex types".

Source: https://github.com/kevinch3/NicotinD/blob/5630d9ea/docs/vocal-isolation-spike.md
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"raw_audio": {0: "batch"}}
BLIND = "operators-25"


class BSRoformer(nn.Module):
    """Trimmed to the STFT -> mask -> complex multiply -> freq re-pad -> iSTFT path of
    bs_roformer/bs_roformer.py (band-split transformer replaced by one Linear mask estimator;
    einops rearranges written as reshape/permute)."""

    def __init__(self, dim=32, stft_n_fft=256, stft_hop_length=64, stft_win_length=256,
                 stft_normalized=False, freq_range=None):
        super().__init__()
        self.stft_kwargs = dict(
            n_fft=stft_n_fft,
            hop_length=stft_hop_length,
            win_length=stft_win_length,
            normalized=stft_normalized
        )
        self.stft_win_length = stft_win_length

        freqs = torch.stft(torch.randn(1, 4096), **self.stft_kwargs, return_complex=True).shape[1]

        # enforcing a frequency range
        freq_range = freq_range if freq_range is not None else (-1, -1)
        min_freq, max_freq = freq_range
        min_freq = 0 if min_freq == -1 else min_freq
        max_freq = freqs if max_freq == -1 else max_freq

        self.freq_slice = slice(min_freq, max_freq)  # for slicing out the frequency for training
        self.freq_pad = (min_freq, freqs - max_freq)  # for reconstruction during istft
        freqs = max_freq - min_freq

        self.band_split = nn.Linear(freqs * 2, dim)
        self.mask_estimator = nn.Sequential(nn.Linear(dim, dim * 4), nn.Tanh(), nn.Linear(dim * 4, freqs * 2))

    def forward(self, raw_audio):
        stft_window = torch.hann_window(self.stft_win_length, device=raw_audio.device)

        stft_repr = torch.stft(raw_audio, **self.stft_kwargs, window=stft_window, return_complex=True)
        stft_repr = torch.view_as_real(stft_repr)  # b f t c

        stft_repr = stft_repr[:, self.freq_slice]  # slice out frequency range

        b, f, t, c = stft_repr.shape
        x = stft_repr.permute(0, 2, 1, 3).reshape(b, t, f * c)  # 'b f t c -> b t (f c)'
        x = self.band_split(x)

        mask = self.mask_estimator(x)
        mask = mask.reshape(b, t, f, c).permute(0, 2, 1, 3)  # 'b t (f c) -> b f t c'

        # complex number multiplication
        stft_repr = torch.view_as_complex(stft_repr.contiguous())
        mask = torch.view_as_complex(mask.contiguous())

        stft_repr = stft_repr * mask

        # istft
        stft_repr = F.pad(stft_repr, (0, 0, *self.freq_pad))

        recon_audio = torch.istft(stft_repr, **self.stft_kwargs, window=stft_window, return_complex=False)
        return recon_audio


def make_model():
    return BSRoformer().eval()


def example_inputs():
    return (torch.randn(2, 4096) * 0.1,)


def other_inputs():
    return [(torch.randn(3, 4096) * 0.1,), (torch.randn(1, 4096) * 0.1,)]


def probe_inputs():
    return other_inputs()
