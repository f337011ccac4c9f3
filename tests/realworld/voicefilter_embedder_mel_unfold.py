"""VoiceFilter's d-vector `SpeechEmbedder`: the reference mel spectrogram is cut into sliding windows with
`mel.unfold(1, window, stride)`, the windows go through an LSTM as a batch and the per-window embeddings are
averaged with `x.sum(0) / x.size(0)`; the report says the exported embedder froze the unfold into a fixed number
of Slice+Concat nodes (and a fixed LSTM batch), so shorter reference audio failed with a Concat shape mismatch
and frames beyond the export length were silently ignored.

Source: https://github.com/ailia-ai/ailia-models/pull/1894
"""
import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "views"
DYNAMIC = {"mel": {1: "frames"}}
BLIND = "domains-4"


class LinearNorm(nn.Module):
    def __init__(self, lstm_hidden, emb_dim):
        super().__init__()
        self.linear_layer = nn.Linear(lstm_hidden, emb_dim)

    def forward(self, x):
        return self.linear_layer(x)


class SpeechEmbedder(nn.Module):
    def __init__(self, num_mels=16, lstm_hidden=24, lstm_layers=2, emb_dim=12, window=20, stride=10):
        super().__init__()
        self.lstm = nn.LSTM(num_mels, lstm_hidden, num_layers=lstm_layers, batch_first=True)
        self.proj = LinearNorm(lstm_hidden, emb_dim)
        self.window = window
        self.stride = stride

    def forward(self, mel):
        # (num_mels, T)
        mels = mel.unfold(1, self.window, self.stride)  # (num_mels, T', window)
        mels = mels.permute(1, 2, 0)  # (T', window, num_mels)
        x, _ = self.lstm(mels)  # (T', window, lstm_hidden)
        x = x[:, -1, :]  # (T', lstm_hidden), use last frame only
        x = self.proj(x)  # (T', emb_dim)
        x = x / torch.norm(x, p=2, dim=1, keepdim=True)  # (T', emb_dim)
        x = x.sum(0) / x.size(0)  # (emb_dim), average pooling over time frames
        return x


def make_model():
    return SpeechEmbedder().eval()


def example_inputs():
    return (torch.randn(16, 70),)


def other_inputs():
    return [(torch.randn(16, 45),), (torch.randn(16, 133),)]


def probe_inputs():
    return other_inputs()
