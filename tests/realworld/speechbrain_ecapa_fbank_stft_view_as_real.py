"""Speaker-verification (voiceprint) model: SpeechBrain's `EncoderClassifier` computes Fbank features
in its forward (`STFT` module: `torch.stft(..., return_complex=True)` then `torch.view_as_real`,
`spectral_magnitude`, mel filterbank, dB) before the embedding network; exporting the classifier to
ONNX fails on the stft ("Exporting the operator stft to ONNX ... is not supported").

Source: https://github.com/pytorch/pytorch/issues/83498
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"wavs": {0: "batch", 1: "samples"}}
BLIND = "operators-11"


class STFT(torch.nn.Module):
    def __init__(self, sample_rate, win_length=25, hop_length=10, n_fft=400, window_fn=torch.hamming_window,
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
        if len(or_shape) == 3:
            x = x.transpose(1, 2)
            x = x.reshape(or_shape[0] * or_shape[2], or_shape[1])
        stft = torch.stft(x, self.n_fft, self.hop_length, self.win_length, self.window.to(x.device),
                          self.center, self.pad_mode, self.normalized_stft, self.onesided, return_complex=True)
        stft = torch.view_as_real(stft)
        stft = stft.transpose(2, 1)
        return stft


def spectral_magnitude(stft, power=1, log=False, eps=1e-14):
    spectr = stft.pow(2).sum(-1)
    if power < 1:
        spectr = spectr + eps
    spectr = spectr.pow(power)
    if log:
        return torch.log(spectr + eps)
    return spectr


class Filterbank(torch.nn.Module):
    def __init__(self, n_mels=80, n_fft=400, sample_rate=16000, top_db=80.0):
        super().__init__()
        n_stft = n_fft // 2 + 1
        mel = torch.linspace(0, 2595 * torch.log10(torch.tensor(1 + sample_rate / 2 / 700)), n_mels + 2)
        hz = 700 * (10 ** (mel / 2595) - 1)
        band = hz[1:] - hz[:-1]
        all_freqs = torch.linspace(0, sample_rate // 2, n_stft).unsqueeze(0)
        f_central = hz[1:-1].unsqueeze(1)
        slope = (all_freqs - f_central) / band[:-1].unsqueeze(1)
        left_side, right_side = slope + 1.0, -slope + 1.0
        self.register_buffer("fbank_matrix", torch.max(torch.zeros(1), torch.min(left_side, right_side)).t())
        self.multiplier = 10
        self.amin = 1e-10
        self.db_multiplier = 0.0
        self.top_db = top_db

    def forward(self, spectrogram):
        fbanks = torch.matmul(spectrogram, self.fbank_matrix)
        x_db = self.multiplier * torch.log10(torch.clamp(fbanks, min=self.amin))
        x_db -= self.multiplier * self.db_multiplier
        new_x_db_max = x_db.amax(dim=(-2, -1)) - self.top_db
        return torch.max(x_db, new_x_db_max.view(x_db.shape[0], 1, 1))


class Fbank(torch.nn.Module):
    def __init__(self, sample_rate=16000, n_fft=400, n_mels=80):
        super().__init__()
        self.compute_STFT = STFT(sample_rate=sample_rate, n_fft=n_fft)
        self.compute_fbanks = Filterbank(n_mels=n_mels, n_fft=n_fft, sample_rate=sample_rate)

    def forward(self, wav):
        STFT = self.compute_STFT(wav)
        mag = spectral_magnitude(STFT, power=2)
        return self.compute_fbanks(mag)


class EncoderClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.compute_features = Fbank(n_mels=80)
        self.embedding_model = nn.Sequential(nn.Conv1d(80, 64, 5, padding=2), nn.ReLU(), nn.Conv1d(64, 64, 3, padding=1))

    def forward(self, wavs):
        feats = self.compute_features(wavs)
        feats = feats - feats.mean(dim=1, keepdim=True)
        emb = self.embedding_model(feats.transpose(1, 2))
        return emb.mean(dim=-1)


def make_model():
    return EncoderClassifier()


def example_inputs():
    return (torch.randn(2, 16000),)


def other_inputs():
    return [(torch.randn(3, 24000),), (torch.randn(1, 8000),)]


def probe_inputs():
    return other_inputs()
