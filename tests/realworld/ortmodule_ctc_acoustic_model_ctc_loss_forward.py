"""A small CTC acoustic model computes its training loss inside forward (log_softmax over the vocabulary, then
nn.CTCLoss), as models wrapped by ORTModule do; the PR adds a symbolic because aten::ctc_loss has no ONNX export,
so exporting the model's forward fails on the CTC loss.

Source: https://github.com/microsoft/onnxruntime/pull/9552
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {
    "features": {0: "batch", 1: "frames"},
    "labels": {0: "batch", 1: "label_len"},
    "input_lengths": {0: "batch"},
    "target_lengths": {0: "batch"},
}
BLIND = "operators-34"


class CTCAcousticModel(nn.Module):
    def __init__(self, feat_dim=40, hidden=64, vocab_size=30):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Linear(feat_dim, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
        )
        self.lm_head = nn.Linear(hidden, vocab_size)
        self.ctc_loss = nn.CTCLoss(blank=0, reduction="mean", zero_infinity=True)

    def forward(self, features, labels, input_lengths, target_lengths):
        hidden_states = self.encoder(features)
        logits = self.lm_head(hidden_states)
        # (batch, time, vocab) -> (time, batch, vocab) as CTCLoss expects
        log_probs = nn.functional.log_softmax(logits, dim=-1).transpose(0, 1)
        loss = self.ctc_loss(log_probs, labels, input_lengths, target_lengths)
        return loss


def make_model():
    return CTCAcousticModel()


def _batch(b, t, s):
    features = torch.randn(b, t, 40)
    labels = torch.randint(1, 30, (b, s))
    input_lengths = torch.full((b,), t, dtype=torch.long)
    target_lengths = torch.randint(1, s + 1, (b,))
    return (features, labels, input_lengths, target_lengths)


def example_inputs():
    return _batch(2, 20, 6)


def other_inputs():
    return [_batch(3, 32, 9), _batch(1, 12, 4)]


def probe_inputs():
    return other_inputs()
