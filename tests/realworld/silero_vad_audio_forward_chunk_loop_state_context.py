"""Silero VAD (v5, 16 kHz): whole-recording inference is `audio_forward`, which pads the waveform to a
multiple of 512 when `x.shape[1] % num_samples`, then loops `for i in range(0, x.shape[1], num_samples)`
over 512-sample windows, prepending the 64-sample context and carrying the LSTM state in module attributes
between calls, and concatenates the per-window probabilities; PR #784 adds a separate sequence model
because this frame-at-a-time path cannot be exported as one graph over a dynamic number of frames.

Source: https://github.com/snakers4/silero-vad/pull/784
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 1: "samples"}}
BLIND = "domains-76"


class STFT(nn.Module):
    def __init__(self, sample_rate: int):
        super().__init__()
        filter_length = int(sample_rate / 62.5)
        self.filter_length = filter_length
        self.hop_length = filter_length // 2
        self.padding = nn.ReflectionPad1d(filter_length // 2)
        self.register_buffer("forward_basis_buffer", torch.randn(filter_length + 2, 1, filter_length) * 0.05)

    def forward(self, audio: torch.Tensor) -> torch.Tensor:
        audio = self.padding(audio).unsqueeze(1)
        transform = F.conv1d(audio, self.forward_basis_buffer, stride=self.hop_length)
        cutoff = self.filter_length // 2 + 1
        real = transform[:, :cutoff, 1:]
        imaginary = transform[:, cutoff:, 1:]
        return torch.sqrt(real.pow(2) + imaginary.pow(2))


class VADDecoderRNNJIT(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTMCell(128, 128)
        self.decoder = nn.Sequential(nn.Dropout(0.1), nn.ReLU(), nn.Conv1d(128, 1, kernel_size=1), nn.Sigmoid())

    def forward(self, x, state=torch.zeros(0)):
        x = x.squeeze(-1)
        if len(state):
            h, c = self.rnn(x, (state[0], state[1]))
        else:
            h, c = self.rnn(x)
        x = h.unsqueeze(-1).float()
        state = torch.stack([h, c])
        x = self.decoder(x)
        return x, state


class SileroVAD(nn.Module):
    def __init__(self, sample_rate=16000):
        super().__init__()
        self.sample_rates = [8000, 16000]
        self.stft = STFT(sample_rate)
        self.encoder = nn.ModuleList([
            nn.Conv1d(int(sample_rate / 125) + 1, 128, 3, padding=1),
            nn.Conv1d(128, 64, 3, stride=2, padding=1),
            nn.Conv1d(64, 64, 3, stride=2, padding=1),
            nn.Conv1d(64, 128, 3, padding=1),
        ])
        self.decoder = VADDecoderRNNJIT()
        self.reset_states()

    def _validate_input(self, x, sr: int):
        if x.dim() == 1:
            x = x.unsqueeze(0)
        if x.dim() > 2:
            raise ValueError(f"Too many dimensions for input audio chunk {x.dim()}")
        if sr not in self.sample_rates:
            raise ValueError(f"Supported sampling rates: {self.sample_rates} (or multiply of 16000)")
        if sr / x.shape[1] > 31.25:
            raise ValueError("Input audio chunk is too short")
        return x, sr

    def reset_states(self, batch_size=1):
        self._state = torch.zeros((2, batch_size, 128)).float()
        self._context = torch.zeros(0)
        self._last_sr = 0
        self._last_batch_size = 0

    def forward(self, x, sr: int):
        x, sr = self._validate_input(x, sr)
        num_samples = 512 if sr == 16000 else 256
        if x.shape[-1] != num_samples:
            raise ValueError(f"Provided number of samples is {x.shape[-1]} (Supported values: 256 for 8000 sample rate, 512 for 16000)")
        batch_size = x.shape[0]
        context_size = 64 if sr == 16000 else 32
        if not self._last_batch_size:
            self.reset_states(batch_size)
        if not len(self._context):
            self._context = torch.zeros(batch_size, context_size)
        x = torch.cat([self._context, x], dim=1)
        h = self.stft(x)
        for layer in self.encoder:
            h = F.relu(layer(h))
        out, self._state = self.decoder(h, self._state)
        self._context = x[..., -context_size:]
        self._last_sr = sr
        self._last_batch_size = batch_size
        return out.squeeze(1)

    def audio_forward(self, x, sr: int):
        outs = []
        x, sr = self._validate_input(x, sr)
        self.reset_states()
        num_samples = 512 if sr == 16000 else 256
        if x.shape[1] % num_samples:
            pad_num = num_samples - (x.shape[1] % num_samples)
            x = torch.nn.functional.pad(x, (0, pad_num), 'constant', value=0.0)
        for i in range(0, x.shape[1], num_samples):
            wavs_batch = x[:, i:i+num_samples]
            out_chunk = self.forward(wavs_batch, sr)
            outs.append(out_chunk)
        stacked = torch.cat(outs, dim=1)
        return stacked


class WholeRecordingVAD(nn.Module):
    def __init__(self):
        super().__init__()
        self.vad = SileroVAD()

    def forward(self, x):
        return self.vad.audio_forward(x, 16000)


def make_model():
    return WholeRecordingVAD().eval()


def example_inputs():
    return (torch.randn(2, 1500),)


def other_inputs():
    return [(torch.randn(3, 2600),), (torch.randn(1, 700),)]


def probe_inputs():
    return other_inputs()
