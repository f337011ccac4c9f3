"""AudioClassification-Pytorch (yeyupiaoling/macls): the user moves the `AudioFeaturizer` (method `Fbank`)
into the model's forward to export one ONNX file; `KaldiFbank.forward` loops `for waveform in waveforms`
calling `torchaudio.compliance.kaldi.fbank` (strided framing from the waveform length, `torch.fft.rfft`)
per clip and stacks the results, and `torch.onnx.export` fails (reported: "Exporting the operator
'aten::fft_rfft' to ONNX opset version 14 is not supported").

Source: https://github.com/yeyupiaoling/AudioClassification-Pytorch/issues/30
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"waveforms": {0: "batch", 1: "samples"}}
BLIND = "domains-76"

MILLISECONDS_TO_SECONDS = 0.001


# --- trimmed copy of torchaudio.compliance.kaldi (default path, vtln_warp == 1.0) ---
def _get_epsilon(device, dtype):
    return torch.tensor(torch.finfo(torch.float).eps, device=device, dtype=dtype)


def _next_power_of_2(x: int) -> int:
    return 1 if x == 0 else 2 ** (x - 1).bit_length()


def _get_strided(waveform, window_size, window_shift, snip_edges):
    assert waveform.dim() == 1
    num_samples = waveform.size(0)
    strides = (window_shift * waveform.stride(0), waveform.stride(0))
    if num_samples < window_size:
        return torch.empty((0, 0), dtype=waveform.dtype, device=waveform.device)
    else:
        m = 1 + (num_samples - window_size) // window_shift
    sizes = (m, window_size)
    return waveform.as_strided(sizes, strides)


def _get_log_energy(strided_input, epsilon, energy_floor):
    log_energy = torch.max(strided_input.pow(2).sum(1), epsilon).log()  # size (m)
    return log_energy


def mel_scale_scalar(freq: float) -> float:
    return 1127.0 * math.log(1.0 + freq / 700.0)


def mel_scale(freq):
    return 1127.0 * (1.0 + freq / 700.0).log()


def get_mel_banks(num_bins, window_length_padded, sample_freq, low_freq, high_freq):
    num_fft_bins = window_length_padded / 2
    nyquist = 0.5 * sample_freq
    if high_freq <= 0.0:
        high_freq += nyquist
    fft_bin_width = sample_freq / window_length_padded
    mel_low_freq = mel_scale_scalar(low_freq)
    mel_high_freq = mel_scale_scalar(high_freq)
    mel_freq_delta = (mel_high_freq - mel_low_freq) / (num_bins + 1)
    bin = torch.arange(num_bins).unsqueeze(1)
    left_mel = mel_low_freq + bin * mel_freq_delta  # size(num_bins, 1)
    center_mel = mel_low_freq + (bin + 1.0) * mel_freq_delta
    right_mel = mel_low_freq + (bin + 2.0) * mel_freq_delta
    mel = mel_scale(fft_bin_width * torch.arange(num_fft_bins)).unsqueeze(0)
    up_slope = (mel - left_mel) / (center_mel - left_mel)
    down_slope = (right_mel - mel) / (right_mel - center_mel)
    bins = torch.max(torch.zeros(1), torch.min(up_slope, down_slope))
    return bins


def fbank(waveform, frame_length=25.0, frame_shift=10.0, num_mel_bins=23, sample_frequency=16000.0,
          low_freq=20.0, high_freq=0.0, preemphasis_coefficient=0.97, energy_floor=1.0):
    device, dtype = waveform.device, waveform.dtype
    waveform = waveform[0, :]  # channel 0
    window_shift = int(sample_frequency * frame_shift * MILLISECONDS_TO_SECONDS)
    window_size = int(sample_frequency * frame_length * MILLISECONDS_TO_SECONDS)
    padded_window_size = _next_power_of_2(window_size)
    assert 2 <= window_size <= len(waveform), "choose a window size {} that is [2, {}]".format(window_size, len(waveform))
    epsilon = _get_epsilon(device, dtype)
    strided_input = _get_strided(waveform, window_size, window_shift, True)
    row_means = torch.mean(strided_input, dim=1).unsqueeze(1)
    strided_input = strided_input - row_means
    signal_log_energy = _get_log_energy(strided_input, epsilon, energy_floor)  # raw_energy
    offset_strided_input = F.pad(strided_input.unsqueeze(0), (1, 0), mode="replicate").squeeze(0)
    strided_input = strided_input - preemphasis_coefficient * offset_strided_input[:, :-1]
    window_function = torch.hann_window(window_size, periodic=False, device=device, dtype=dtype).pow(0.85).unsqueeze(0)
    strided_input = strided_input * window_function
    if padded_window_size != window_size:
        padding_right = padded_window_size - window_size
        strided_input = F.pad(strided_input.unsqueeze(0), (0, padding_right), mode="constant", value=0).squeeze(0)
    spectrum = torch.fft.rfft(strided_input).abs()
    spectrum = spectrum.pow(2.0)
    mel_energies = get_mel_banks(num_mel_bins, padded_window_size, sample_frequency, low_freq, high_freq)
    mel_energies = mel_energies.to(device=device, dtype=dtype)
    mel_energies = F.pad(mel_energies, (0, 1), mode="constant", value=0)
    mel_energies = torch.mm(spectrum, mel_energies.T)
    mel_energies = torch.max(mel_energies, _get_epsilon(device, dtype)).log()
    return mel_energies


# --- macls/data_utils/featurizer.py ---
class KaldiFbank(nn.Module):
    def __init__(self, **kwargs):
        super(KaldiFbank, self).__init__()
        self.kwargs = kwargs

    def forward(self, waveforms):
        log_fbanks = []
        for waveform in waveforms:
            if len(waveform.shape) == 1:
                waveform = waveform.unsqueeze(0)
            log_fbank = fbank(waveform, **self.kwargs)
            log_fbank = log_fbank.transpose(0, 1)
            log_fbanks.append(log_fbank)
        log_fbank = torch.stack(log_fbanks)
        return log_fbank


class AudioFeaturizer(nn.Module):
    def __init__(self, method_args):
        super().__init__()
        self.feat_fun = KaldiFbank(**method_args)

    def forward(self, waveforms):
        if len(waveforms.shape) == 1:
            waveforms = waveforms.unsqueeze(0)
        feature = self.feat_fun(waveforms)
        feature = feature.transpose(2, 1)
        feature = feature - feature.mean(1, keepdim=True)
        return feature


# --- macls/models/tdnn.py (TAP pooling) ---
class TDNN(nn.Module):
    def __init__(self, num_class, input_size, channels=32, embd_dim=16):
        super(TDNN, self).__init__()
        self.td_layer1 = torch.nn.Conv1d(in_channels=input_size, out_channels=channels, dilation=1, kernel_size=5, stride=1)
        self.bn1 = nn.BatchNorm1d(channels)
        self.td_layer2 = torch.nn.Conv1d(in_channels=channels, out_channels=channels, dilation=2, kernel_size=3, stride=1)
        self.bn2 = nn.BatchNorm1d(channels)
        self.bn5 = nn.BatchNorm1d(channels)
        self.linear = nn.Linear(channels, embd_dim)
        self.bn6 = nn.BatchNorm1d(embd_dim)
        self.fc = nn.Linear(embd_dim, num_class)

    def forward(self, x):
        x = x.transpose(2, 1)
        x = self.bn1(F.relu(self.td_layer1(x)))
        x = self.bn2(F.relu(self.td_layer2(x)))
        out = self.bn5(x.mean(dim=-1).flatten(start_dim=1))
        out = self.bn6(self.linear(out))
        return self.fc(out)


class ExportModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.featurizer = AudioFeaturizer({"sample_frequency": 16000, "num_mel_bins": 16})
        self.model = TDNN(num_class=5, input_size=16)

    def forward(self, waveforms):
        feature = self.featurizer(waveforms)
        return torch.softmax(self.model(feature), dim=-1)


def make_model():
    return ExportModel().eval()


def example_inputs():
    return (torch.randn(2, 3200),)


def other_inputs():
    return [(torch.randn(3, 4800),), (torch.randn(1, 2400),)]


def probe_inputs():
    return other_inputs()
