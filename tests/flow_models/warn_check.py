"""ONX601: an `if` on a tensor value whose body only warns: torchaudio's `melscale_fbanks`
sanity check, run in forward because F5-TTS builds its mel front end there (pytorch/audio#3917).
Dynamo fails on it; legacy drops it. Fixed by skipping the check while exporting."""
import warnings

import torch
from torch import nn


def melscale_fbanks(all_freqs: torch.Tensor, f_pts: torch.Tensor) -> torch.Tensor:
    f_diff = f_pts[1:] - f_pts[:-1]
    slopes = f_pts.unsqueeze(0) - all_freqs.unsqueeze(1)
    down_slopes = (-1.0 * slopes[:, :-2]) / f_diff[:-1]
    up_slopes = slopes[:, 2:] / f_diff[1:]
    fb = torch.max(torch.zeros(1), torch.min(down_slopes, up_slopes))
    if (fb.max(dim=0).values == 0.0).any():
        warnings.warn("At least one mel filterbank has all zero values.")
    return fb


class MelBank(nn.Module):
    def __init__(self):
        super().__init__()
        self.bank = melscale_fbanks

    def forward(self, power: torch.Tensor, f_pts: torch.Tensor):
        all_freqs = torch.linspace(0, 8000, power.shape[-1])
        return power @ self.bank(all_freqs, f_pts)


def make_model():
    return MelBank()


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return torch.rand(2, 5, 33, generator=g), torch.linspace(0, 8000, 10)


def probe_inputs():
    g = torch.Generator().manual_seed(1)
    return [(torch.rand(3, 7, 33, generator=g), torch.linspace(100, 7000, 10)),
            (torch.rand(1, 2, 33, generator=g), torch.linspace(0, 8000, 10) ** 1.01)]


DYNAMIC = {0: {0: "batch", 1: "frames"}}
