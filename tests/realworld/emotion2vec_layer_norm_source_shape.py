"""emotion2vec (FunASR speech emotion recognition): the raw waveform is normalized with
`F.layer_norm(x, x.shape)` before the conv feature extractor; the PR adding ONNX export reports that the
export including this LayerNorm errors ("dynamic computation from the layerNormalization"), and replaces it
with an explicit mean/var normalization.

Source: https://github.com/modelscope/FunASR/pull/2359
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {1: "num_samples"}}
BLIND = "domains-8"


class Emotion2vec(nn.Module):
    def __init__(self, embed_dim=32, num_classes=9):
        super().__init__()
        self.local_encoder = nn.Sequential(
            nn.Conv1d(1, embed_dim, 10, stride=5), nn.GELU(),
            nn.Conv1d(embed_dim, embed_dim, 3, stride=2), nn.GELU(),
            nn.Conv1d(embed_dim, embed_dim, 2, stride=2), nn.GELU(),
        )
        self.blocks = nn.TransformerEncoderLayer(embed_dim, 4, 64, dropout=0.0, batch_first=True)
        self.proj = nn.Linear(embed_dim, num_classes)

    def extract_features(self, source):
        x = self.local_encoder(source.unsqueeze(1)).transpose(1, 2)
        x = self.blocks(x)
        return {"x": x}

    def forward(self, x):
        x = F.layer_norm(x, x.shape)
        x = x.view(x.shape[0], -1)
        feats = self.extract_features(x)
        x = feats["x"]
        x = x.mean(dim=1)
        x = self.proj(x)
        return x


def make_model():
    return Emotion2vec().eval()


def example_inputs():
    return (torch.randn(1, 1600),)


def other_inputs():
    return [(torch.randn(1, 2400),), (torch.randn(1, 1000),)]


def probe_inputs():
    return other_inputs()
