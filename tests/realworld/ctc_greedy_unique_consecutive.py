"""CTC ASR model exported together with its greedy decoding: acoustic encoder -> log-softmax ->
`argmax` over the vocabulary -> `torch.unique_consecutive` to collapse repeated labels -> drop
blanks. The export failed with "Exporting the operator unique_consecutive to ONNX opset version 10
is not supported".

Source: https://github.com/onnx/onnx/issues/3193
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"feats": {1: "frames"}}
BLIND = "operators-9"


class CTCGreedyASR(nn.Module):
    def __init__(self, n_mels=40, hidden=64, vocab=30, blank=0):
        super().__init__()
        self.blank = blank
        self.encoder = nn.Sequential(
            nn.Conv1d(n_mels, hidden, 3, padding=1), nn.ReLU(),
            nn.Conv1d(hidden, hidden, 3, padding=1), nn.ReLU(),
        )
        self.proj = nn.Linear(hidden, vocab)

    def forward(self, feats):
        # feats: (1, frames, n_mels) one utterance
        h = self.encoder(feats.transpose(1, 2)).transpose(1, 2)
        log_probs = self.proj(h).log_softmax(dim=-1)
        best_path = torch.argmax(log_probs[0], dim=-1)               # (frames,)
        collapsed = torch.unique_consecutive(best_path)
        tokens = collapsed[collapsed != self.blank]
        return tokens


def make_model():
    return CTCGreedyASR().eval()


def example_inputs():
    return (torch.randn(1, 120, 40),)


def other_inputs():
    return [(torch.randn(1, 200, 40),), (torch.randn(1, 57, 40),)]


def probe_inputs():
    return other_inputs()
