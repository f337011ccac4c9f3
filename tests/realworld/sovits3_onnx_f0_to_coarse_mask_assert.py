"""so-vits-svc 3.0 ONNX export (onnx_export.py / onnxexport/model_onnx.py): the synthesizer expands the
hidden units by `mel2ph` with `torch.gather` and quantises the pitch with `f0_to_coarse`, which writes through
boolean masks (`f0_mel[f0_mel > 0] = ...`) and ends with `assert f0_coarse.max() <= 255 and f0_coarse.min() >= 1`;
the reporter's export (dynamic axes on c, f0, mel2ph, uv) produced a broken model that MoeSS could not load.

Source: https://github.com/svc-develop-team/so-vits-svc/issues/65
"""
import torch
from torch import nn
from torch.nn import functional as F

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"c": {1: "units"}, "f0": {1: "frames"}, "mel2ph": {1: "frames"}}
BLIND = "domains-41"

f0_bin = 256
f0_max = 1100.0
f0_min = 50.0
f0_mel_min = 1127 * torch.log(torch.tensor(1 + f0_min / 700)).item()
f0_mel_max = 1127 * torch.log(torch.tensor(1 + f0_max / 700)).item()


def f0_to_coarse(f0):
    is_torch = isinstance(f0, torch.Tensor)
    f0_mel = 1127 * (1 + f0 / 700).log()
    f0_mel[f0_mel > 0] = (f0_mel[f0_mel > 0] - f0_mel_min) * (f0_bin - 2) / (f0_mel_max - f0_mel_min) + 1

    f0_mel[f0_mel <= 1] = 1
    f0_mel[f0_mel > f0_bin - 1] = f0_bin - 1
    f0_coarse = (f0_mel + 0.5).long() if is_torch else None
    assert f0_coarse.max() <= 255 and f0_coarse.min() >= 1, (f0_coarse.max(), f0_coarse.min())
    return f0_coarse


class SynthesizerTrn(nn.Module):
    def __init__(self, ssl_dim=32, hidden_channels=16):
        super().__init__()
        self.pre = nn.Conv1d(ssl_dim, hidden_channels, 5, padding=2)
        self.f0_emb = nn.Embedding(256, hidden_channels)
        self.proj = nn.Conv1d(hidden_channels, 1, 1)

    def forward(self, c, f0, mel2ph):
        decoder_inp = F.pad(c, [0, 0, 1, 0])
        mel2ph_ = mel2ph.unsqueeze(2).repeat([1, 1, c.shape[-1]])
        c = torch.gather(decoder_inp, 1, mel2ph_).transpose(1, 2)  # [B, H, T]
        x = self.pre(c) + self.f0_emb(f0_to_coarse(f0)).transpose(1, 2)
        return self.proj(x)


def make_model():
    return SynthesizerTrn().eval()


def _inputs(units, frames):
    c = torch.randn(1, units, 32)
    f0 = torch.rand(1, frames) * 600 + 80
    f0[:, ::5] = 0.0  # unvoiced frames
    mel2ph = torch.sort(torch.randint(1, units + 1, (1, frames)), dim=1).values
    return (c, f0, mel2ph)


def example_inputs():
    return _inputs(20, 50)


def other_inputs():
    return [_inputs(31, 77), _inputs(9, 23)]


def probe_inputs():
    return other_inputs()
