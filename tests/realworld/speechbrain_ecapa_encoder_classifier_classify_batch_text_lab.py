"""SpeechBrain EncoderClassifier (spkrec-ecapa-voxceleb) passed whole to torch.onnx.export: its forward is
classify_batch, which returns (out_prob, score, index, text_lab) where text_lab comes from
label_encoder.decode_torch(index), a Python list of label strings built with int(element); the report's export
fails in _jit_pass_onnx_assign_output_shape with "RuntimeError: ArrayRef: invalid index Index = 3; Length = 3".

Source: https://github.com/pytorch/pytorch/issues/107929
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "outputs"
FAMILY = "tensor_data"
DYNAMIC = {"wavs": {0: "batch", 1: "samples"}, "wav_lens": {0: "batch"}}
BLIND = "domains-29"


class CategoricalEncoder:
    def __init__(self, labels):
        self.lab2ind = {lab: i for i, lab in enumerate(labels)}
        self.ind2lab = {i: lab for i, lab in enumerate(labels)}

    def decode_torch(self, x):
        decoded = []
        # Recursively operates on the different dimensions.
        if x.ndim == 1:  # Last dimension!
            for element in x:
                decoded.append(self.ind2lab[int(element)])
        else:
            for subtensor in x:
                decoded.append(self.decode_torch(subtensor))
        return decoded


class Fbank(nn.Module):
    """Stand-in for speechbrain.lobes.features.Fbank: 25 ms frames, 10 ms hop, log filterbank energies."""

    def __init__(self, n_mels=24, win_length=400, hop_length=160):
        super().__init__()
        self.frames = nn.Conv1d(1, n_mels, win_length, stride=hop_length, bias=False)

    def forward(self, wav):
        x = self.frames(wav.unsqueeze(1)) ** 2
        return torch.log(x + 1e-6).transpose(1, 2)  # [batch, time, n_mels]


class ECAPA_TDNN(nn.Module):
    def __init__(self, input_size=24, channels=32, lin_neurons=16):
        super().__init__()
        self.blocks = nn.Sequential(nn.Conv1d(input_size, channels, 5, padding=2), nn.ReLU(), nn.BatchNorm1d(channels),
                                    nn.Conv1d(channels, channels, 3, dilation=2, padding=2), nn.ReLU(),
                                    nn.BatchNorm1d(channels))
        self.asp_bn = nn.BatchNorm1d(channels * 2)
        self.fc = nn.Conv1d(channels * 2, lin_neurons, kernel_size=1)

    def forward(self, x, lengths=None):
        x = self.blocks(x.transpose(1, 2))
        mean, std = x.mean(dim=2), x.std(dim=2)
        pooled_stats = torch.cat((mean, std), dim=1).unsqueeze(2)
        x = self.fc(self.asp_bn(pooled_stats))
        return x.transpose(1, 2)  # [batch, 1, lin_neurons]


class Classifier(nn.Module):
    def __init__(self, input_size=16, out_neurons=10):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(out_neurons, input_size))

    def forward(self, x):
        x = F.linear(F.normalize(x.squeeze(1)), F.normalize(self.weight))
        return x.unsqueeze(1)


class EncoderClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.mods = nn.ModuleDict({"compute_features": Fbank(), "embedding_model": ECAPA_TDNN(),
                                   "classifier": Classifier()})
        self.label_encoder = CategoricalEncoder(["id100%02d" % i for i in range(10)])
        self.device = "cpu"

    def encode_batch(self, wavs, wav_lens=None, normalize=False):
        # Manage single waveforms in input
        if len(wavs.shape) == 1:
            wavs = wavs.unsqueeze(0)

        # Assign full length if wav_lens is not assigned
        if wav_lens is None:
            wav_lens = torch.ones(wavs.shape[0], device=self.device)

        # Storing waveform in the specified device
        wavs, wav_lens = wavs.to(self.device), wav_lens.to(self.device)
        wavs = wavs.float()

        # Computing features and embeddings
        feats = self.mods.compute_features(wavs)
        embeddings = self.mods.embedding_model(feats, wav_lens)
        return embeddings

    def classify_batch(self, wavs, wav_lens=None):
        emb = self.encode_batch(wavs, wav_lens)
        out_prob = self.mods.classifier(emb).squeeze(1)
        score, index = torch.max(out_prob, dim=-1)
        text_lab = self.label_encoder.decode_torch(index)
        return out_prob, score, index, text_lab

    def forward(self, wavs, wav_lens=None):
        """Runs the classification"""
        return self.classify_batch(wavs, wav_lens)


def make_model():
    return EncoderClassifier().eval()


def example_inputs():
    return (torch.randn(1, 16000), torch.ones(1))


def other_inputs():
    return [(torch.randn(3, 24000), torch.tensor([1.0, 0.8, 0.6])), (torch.randn(2, 8000), torch.ones(2))]


def probe_inputs():
    return other_inputs()
