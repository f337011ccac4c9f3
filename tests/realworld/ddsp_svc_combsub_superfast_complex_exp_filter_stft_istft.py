"""DDSP-SVC's combtooth-subtractive vocoder (`CombSubSuperFast`): a `torch.sinc` combtooth exciter, filters
built as complex exponentials (`torch.exp(mag + 1.j * np.pi * phase)`), `torch.stft(..., return_complex=True)`
of the exciter and of the noise, a complex multiply and `torch.istft` back to audio. The PR that added
ONNX export to DDSP-SVC (export_onnx.py) had to swap every one of these for real-valued stand-ins
(`msinc` = sin(x)/x, `complex_exp`/`complex_mul` on (re, im) pairs, a conv_transpose1d iSTFT, a
`return_complex=False` STFT), i.e. the vocoder as written does not export.

Source: https://github.com/yxlllc/DDSP-SVC/pull/139
"""
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"units_frames": {0: "batch", 1: "n_frames"}, "f0_frames": {0: "batch", 1: "n_frames"},
           "volume_frames": {0: "batch", 1: "n_frames"}, "noise": {0: "batch", 1: "n_frames"}}
BLIND = "operators-45"


def split_to_dict(tensor, tensor_splits):
    """Split a tensor into a dictionary of multiple tensors."""
    labels = []
    sizes = []
    for k, v in tensor_splits.items():
        labels.append(k)
        sizes.append(v)
    tensors = torch.split(tensor, sizes, dim=-1)
    return dict(zip(labels, tensors))


class Unit2Control(nn.Module):
    # trimmed: the conformer decoder and speaker embeddings are left out
    def __init__(self, input_channel, output_splits, dim_model=64):
        super().__init__()
        self.output_splits = output_splits
        self.f0_embed = nn.Linear(1, dim_model)
        self.phase_embed = nn.Linear(1, dim_model)
        self.volume_embed = nn.Linear(1, dim_model)
        self.stack = nn.Sequential(nn.Conv1d(input_channel, dim_model, 3, 1, 1), nn.PReLU(num_parameters=dim_model),
                                   nn.Conv1d(dim_model, dim_model, 3, 1, 1))
        self.norm = nn.LayerNorm(dim_model)
        self.dense_out = nn.Linear(dim_model, sum(output_splits.values()))

    def forward(self, units, f0, phase, volume):
        x = self.stack(units.transpose(1,2)).transpose(1,2)
        x = x + self.f0_embed((1+ f0 / 700).log()) + self.phase_embed(phase / np.pi) + self.volume_embed(volume)
        x = self.norm(x)
        e = self.dense_out(x)
        controls = split_to_dict(e, self.output_splits)
        return controls, x


class CombSubSuperFast(torch.nn.Module):
    def __init__(self, sampling_rate=16000, block_size=64, win_length=256, n_unit=32):
        super().__init__()
        self.register_buffer("sampling_rate", torch.tensor(sampling_rate))
        self.register_buffer("block_size", torch.tensor(block_size))
        self.register_buffer("win_length", torch.tensor(win_length))
        self.register_buffer("window", torch.hann_window(win_length))
        split_map = {
            'harmonic_magnitude': win_length // 2 + 1,
            'harmonic_phase': win_length // 2 + 1,
            'noise_magnitude': win_length // 2 + 1,
            'noise_phase': win_length // 2 + 1
        }
        self.unit2ctrl = Unit2Control(n_unit, split_map)

    def fast_source_gen(self, f0_frames):
        n = torch.arange(self.block_size, device=f0_frames.device)
        s0 = f0_frames / self.sampling_rate
        ds0 = F.pad(s0[:, 1:, :] - s0[:, :-1, :], (0, 0, 0, 1))
        rad = s0 * (n + 1) + 0.5 * ds0 * n * (n + 1) / self.block_size
        s0 = s0 + ds0 * n / self.block_size
        rad2 = torch.fmod(rad[..., -1:].float() + 0.5, 1.0) - 0.5
        rad_acc = rad2.cumsum(dim=1).fmod(1.0).to(f0_frames)
        rad += F.pad(rad_acc[:, :-1, :], (0, 0, 1, 0))
        rad -= torch.round(rad)
        combtooth = torch.sinc(rad / (s0 + 1e-5)).reshape(f0_frames.shape[0], -1)
        phase_frames = 2 * np.pi * rad[:, :, :1]
        return combtooth, phase_frames

    def forward(self, units_frames, f0_frames, volume_frames, noise):
        combtooth, phase_frames = self.fast_source_gen(f0_frames)
        # the original draws noise = torch.randn_like(combtooth) here; export_onnx.py takes it as an input
        noise = noise.reshape(combtooth.shape[0], -1)
        ctrls, hidden = self.unit2ctrl(units_frames, f0_frames, phase_frames, volume_frames)

        src_filter = torch.exp(ctrls['harmonic_magnitude'] + 1.j * np.pi * ctrls['harmonic_phase'])
        src_filter = torch.cat((src_filter, src_filter[:,-1:,:]), 1)
        noise_filter= torch.exp(ctrls['noise_magnitude'] + 1.j * np.pi * ctrls['noise_phase']) / 128
        noise_filter = torch.cat((noise_filter, noise_filter[:,-1:,:]), 1)

        combtooth_stft = torch.stft(combtooth, n_fft = self.win_length, win_length = self.win_length,
                                    hop_length = self.block_size, window = self.window, center = True,
                                    return_complex = True, pad_mode = 'reflect')
        noise_stft = torch.stft(noise, n_fft = self.win_length, win_length = self.win_length,
                                hop_length = self.block_size, window = self.window, center = True,
                                return_complex = True, pad_mode = 'reflect')

        signal_stft = combtooth_stft * src_filter.permute(0, 2, 1) + noise_stft * noise_filter.permute(0, 2, 1)

        signal = torch.istft(signal_stft, n_fft = self.win_length, win_length = self.win_length,
                             hop_length = self.block_size, window = self.window, center = True)
        return signal


def make_model():
    return CombSubSuperFast().eval()


def _inputs(b, t):
    units = torch.randn(b, t, 32)
    f0 = 100.0 + 200.0 * torch.rand(b, t, 1)
    volume = torch.rand(b, t, 1)
    noise = torch.randn(b, t, 64)
    return (units, f0, volume, noise)


def example_inputs():
    return _inputs(2, 40)


def other_inputs():
    return [_inputs(3, 57), _inputs(1, 25)]


def probe_inputs():
    return other_inputs()
