"""Global peak picking on a single magnitude spectrogram: `score.argmax(keepdim=True)` with no `dim`
(argmax over the flattened map, keeping every dimension as size 1), then the flat index is turned
into (frequency bin, frame). The report: the argmax/argmin decomposition ignored `keepdim=True`
when `dim=None`, producing the wrong output rank.

Source: https://github.com/llvm/torch-mlir/pull/3514
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"mag": {1: "frames"}}
BLIND = "operators-32"


class GlobalPeak(nn.Module):
    def __init__(self, n_bins=33):
        super().__init__()
        self.smooth = nn.Conv1d(n_bins, n_bins, 3, padding=1, groups=n_bins)

    def forward(self, mag):
        # mag: [F, T] magnitude spectrogram of one clip
        score = self.smooth(torch.log1p(mag).unsqueeze(0)).squeeze(0)
        flat_idx = score.argmax(keepdim=True)  # [1, 1]
        n_frames = score.shape[1]
        freq_bin = torch.div(flat_idx, n_frames, rounding_mode="floor")
        frame = flat_idx - freq_bin * n_frames
        return flat_idx, freq_bin, frame


def make_model():
    return GlobalPeak().eval()


def example_inputs():
    return (torch.rand(33, 40),)


def other_inputs():
    return [(torch.rand(33, 57),), (torch.rand(33, 12),)]


def probe_inputs():
    return other_inputs()
