"""BS-RoFormer music source separation (ZFTurbo's Music-Source-Separation-Training): forward takes
`torch.stft(raw_audio, **self.stft_kwargs, window=stft_window, return_complex=True)` with a hann
window built in forward, splits it with `torch.view_as_real`, estimates a complex mask per stem,
multiplies back in the complex domain (`torch.view_as_complex`) and reconstructs with `torch.istft`;
the report says ONNX/TensorRT export fails because stft and istft are not supported, and it only
exported after stripping them out. (einops rearranges spelled with reshape/permute; the axial
transformers are trimmed to one MLP; one band-split Linear over all bands; the chunk length is fixed
as in MSST's chunked inference, the batch is dynamic.)

Source: https://github.com/ZFTurbo/Music-Source-Separation-Training/issues/37
"""
from functools import partial

import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"raw_audio": {0: "batch"}}
BLIND = "operators-17"


class RMSNorm(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = dim ** 0.5
        self.gamma = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return nn.functional.normalize(x, dim=-1) * self.scale * self.gamma


class BSRoformer(nn.Module):
    def __init__(self, dim=32, stereo=True, num_stems=2, stft_n_fft=256, stft_hop_length=64,
                 stft_win_length=256, stft_normalized=False, stft_window_fn=None):
        super().__init__()
        self.stereo = stereo
        self.audio_channels = 2 if stereo else 1
        self.stft_kwargs = dict(
            n_fft=stft_n_fft,
            hop_length=stft_hop_length,
            win_length=stft_win_length,
            normalized=stft_normalized
        )
        self.stft_window_fn = partial(stft_window_fn or torch.hann_window, stft_win_length)
        freqs = torch.stft(torch.randn(1, 4096), **self.stft_kwargs, window=torch.ones(stft_win_length),
                           return_complex=True).shape[1]
        dim_in = 2 * freqs * self.audio_channels
        self.band_split = nn.Sequential(RMSNorm(dim_in), nn.Linear(dim_in, dim))
        self.transformer = nn.Sequential(nn.Linear(dim, dim * 2), nn.GELU(), nn.Linear(dim * 2, dim))
        self.final_norm = RMSNorm(dim)
        self.mask_estimators = nn.ModuleList(
            [nn.Sequential(nn.Linear(dim, dim * 2), nn.Tanh(), nn.Linear(dim * 2, dim_in)) for _ in range(num_stems)])

    def forward(self, raw_audio):
        device = raw_audio.device
        b, s, t = raw_audio.shape
        raw_audio = raw_audio.reshape(b * s, t)                          # pack_one(raw_audio, '* t')

        stft_window = self.stft_window_fn(device=device)
        stft_repr = torch.stft(raw_audio, **self.stft_kwargs, window=stft_window, return_complex=True)
        stft_repr = torch.view_as_real(stft_repr)

        f, frames = stft_repr.shape[1], stft_repr.shape[2]
        stft_repr = stft_repr.reshape(b, s, f, frames, 2)                # unpack_one '* f t c'
        stft_repr = stft_repr.permute(0, 2, 1, 3, 4).reshape(b, f * s, frames, 2)   # 'b s f t c -> b (f s) t c'
        x = stft_repr.permute(0, 2, 1, 3).reshape(b, frames, f * s * 2)  # 'b f t c -> b t (f c)'

        x = self.band_split(x)
        x = x + self.transformer(x)
        x = self.final_norm(x)

        num_stems = len(self.mask_estimators)
        mask = torch.stack([fn(x) for fn in self.mask_estimators], dim=1)
        mask = mask.reshape(b, num_stems, frames, f * s, 2).permute(0, 1, 3, 2, 4)  # 'b n t (f c) -> b n f t c'

        stft_repr = stft_repr.unsqueeze(1)                               # 'b f t c -> b 1 f t c'
        stft_repr = torch.view_as_complex(stft_repr)
        mask = torch.view_as_complex(mask)
        stft_repr = stft_repr * mask

        # 'b n (f s) t -> (b n s) f t'
        stft_repr = stft_repr.reshape(b, num_stems, f, s, frames).permute(0, 1, 3, 2, 4).reshape(b * num_stems * s, f, frames)
        recon_audio = torch.istft(stft_repr, **self.stft_kwargs, window=stft_window, return_complex=False,
                                  length=raw_audio.shape[-1])
        recon_audio = recon_audio.reshape(b, num_stems, s, -1)           # '(b n s) t -> b n s t'
        return recon_audio


def make_model():
    return BSRoformer().eval()


def example_inputs():
    return (torch.randn(2, 2, 8000),)


def other_inputs():
    return [(torch.randn(3, 2, 8000),), (torch.randn(1, 2, 8000),)]


def probe_inputs():
    return other_inputs()
