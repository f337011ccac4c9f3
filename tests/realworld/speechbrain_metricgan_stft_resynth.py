"""SpeechBrain MetricGAN+ speech enhancement (`SpectralMaskEnhancement.enhance_batch`): features come from
speechbrain's `STFT` (`torch.stft(..., return_complex=True)` + `torch.view_as_real`) and
`spectral_magnitude`, a BLSTM predicts a mask, and `resynthesize` rebuilds the waveform with the noisy
phase through `ISTFT`; the export fails with "Exporting the operator stft to ONNX opset version 9 is
not supported" (maintainer: torch.stft, used in feature computation, is not ONNX exportable).

Source: https://github.com/speechbrain/speechbrain/issues/1455
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"noisy": {0: "batch", 1: "time"}}
BLIND = "operators-5"


class STFT(torch.nn.Module):
    def __init__(self, sample_rate, win_length=32, hop_length=16, n_fft=512, window_fn=torch.hamming_window,
                 normalized_stft=False, center=True, pad_mode="constant", onesided=True):
        super().__init__()
        self.sample_rate = sample_rate
        self.win_length = int(round((self.sample_rate / 1000.0) * win_length))
        self.hop_length = int(round((self.sample_rate / 1000.0) * hop_length))
        self.n_fft = n_fft
        self.normalized_stft = normalized_stft
        self.center = center
        self.pad_mode = pad_mode
        self.onesided = onesided
        self.window = window_fn(self.win_length)

    def forward(self, x):
        or_shape = x.shape
        stft = torch.stft(x, self.n_fft, self.hop_length, self.win_length, self.window.to(x.device),
                          self.center, self.pad_mode, self.normalized_stft, self.onesided, return_complex=True)
        stft = torch.view_as_real(stft)
        stft = stft.transpose(2, 1)
        return stft


class ISTFT(torch.nn.Module):
    def __init__(self, sample_rate, n_fft=512, win_length=32, hop_length=16, window_fn=torch.hamming_window,
                 normalized_stft=False, center=True, onesided=True):
        super().__init__()
        self.win_length = int(round((sample_rate / 1000.0) * win_length))
        self.hop_length = int(round((sample_rate / 1000.0) * hop_length))
        self.n_fft = n_fft
        self.normalized_stft = normalized_stft
        self.center = center
        self.onesided = onesided
        self.window = window_fn(self.win_length)

    def forward(self, x, sig_length=None):
        x = x.transpose(2, 1)
        x = torch.view_as_complex(x)
        istft = torch.istft(input=x, n_fft=self.n_fft, hop_length=self.hop_length, win_length=self.win_length,
                            window=self.window.to(x.device), center=self.center, onesided=self.onesided,
                            length=sig_length)
        return istft


def spectral_magnitude(stft, power=1, log=False, eps=1e-14):
    spectr = stft.pow(2).sum(-1)
    if power < 1:
        spectr = spectr + eps
    spectr = spectr.pow(power)
    if log:
        return torch.log(spectr + eps)
    return spectr


class Learnable_sigmoid(nn.Module):
    def __init__(self, in_features=257):
        super().__init__()
        self.slope = nn.Parameter(torch.ones(in_features))
        self.slope.requiresGrad = True

    def forward(self, x):
        return 1.2 * torch.sigmoid(self.slope * x)


class EnhancementGenerator(nn.Module):
    def __init__(self, input_size=257, hidden_size=200, num_layers=2):
        super().__init__()
        self.blstm = nn.LSTM(input_size, hidden_size, num_layers, bidirectional=True, batch_first=True)
        self.linear1 = nn.Linear(400, 300)
        self.linear2 = nn.Linear(300, 257)
        self.Learnable_sigmoid = Learnable_sigmoid()
        self.activation = nn.LeakyReLU(negative_slope=0.3)

    def forward(self, x):
        out, _ = self.blstm(x)
        out = self.activation(self.linear1(out))
        out = self.linear2(out)
        return self.Learnable_sigmoid(out)


class MetricGANEnhancer(nn.Module):
    def __init__(self, sample_rate=16000):
        super().__init__()
        self.compute_stft = STFT(sample_rate=sample_rate)
        self.compute_istft = ISTFT(sample_rate=sample_rate)
        self.enhance_model = EnhancementGenerator()

    def compute_features(self, wavs):
        feats = self.compute_stft(wavs)
        feats = spectral_magnitude(feats, power=0.5)
        feats = torch.log1p(feats)
        return feats

    def resynthesize(self, enhanced_mag, noisy_inputs):
        noisy_stft = self.compute_stft(noisy_inputs)
        noisy_phase = torch.atan2(noisy_stft[:, :, :, 1], noisy_stft[:, :, :, 0])
        complex_predictions = torch.mul(
            torch.unsqueeze(enhanced_mag, -1),
            torch.cat((torch.unsqueeze(torch.cos(noisy_phase), -1), torch.unsqueeze(torch.sin(noisy_phase), -1)), -1),
        )
        pred_wavs = self.compute_istft(complex_predictions, sig_length=noisy_inputs.shape[1])
        return pred_wavs

    def forward(self, noisy):
        noisy_features = self.compute_features(noisy)
        mask = self.enhance_model(noisy_features)
        enhanced = torch.mul(mask, noisy_features)
        return self.resynthesize(torch.expm1(enhanced), noisy)


def make_model():
    return MetricGANEnhancer().eval()


def example_inputs():
    return (torch.randn(1, 16000) * 0.1,)


def other_inputs():
    return [(torch.randn(2, 12800) * 0.1,), (torch.randn(3, 20480) * 0.1,)]


def probe_inputs():
    return other_inputs()
