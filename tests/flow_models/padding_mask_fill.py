"""ONX705: wav2vec2/WavLM's sequence classifier zeroes the padded frames through the (batch, frames)
mask, `hidden_states[~padding_mask] = 0.0`, before mean pooling. The legacy exporter writes it as a
Where of the mask against the tensor without its hidden axis: onnxruntime fails on every input. The
fix fills through the mask with its missing axis of size 1 (safe)."""
import torch
from torch import nn


class SequenceClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.projector = nn.Linear(8, 4)
        self.classifier = nn.Linear(4, 3)

    def forward(self, features, lengths):
        hidden_states = self.projector(features)
        padding_mask = torch.arange(hidden_states.shape[1]) < lengths[:, None]
        hidden_states[~padding_mask] = 0.0
        pooled = hidden_states.sum(dim=1) / padding_mask.sum(dim=1, keepdim=True)
        return self.classifier(pooled)


def make_model():
    torch.manual_seed(0)
    return SequenceClassifier()


def example_inputs():
    return (torch.randn(2, 6, 8), torch.tensor([6, 3]))


def probe_inputs():
    return [(torch.randn(3, 9, 8), torch.tensor([9, 2, 5])), (torch.randn(1, 4, 8), torch.tensor([3]))]


DYNAMIC = {0: {0: "batch", 1: "frames"}, 1: {0: "batch"}}
