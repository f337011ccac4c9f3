"""An embedding model compares its features with reference embeddings stored on the module (`self`) using
`torch.cdist`, and returns the distances and a threshold match; the report says the exported ONNX model's
results vary depending on the dummy input used at export and blames `torch.cdist` (also very slow).

Source: https://github.com/onnx/onnx/issues/6031
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-61"


class EmbeddingMatcher(nn.Module):
    def __init__(self, in_dim=32, emb_dim=16, num_refs=10):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(in_dim, 64), nn.ReLU(), nn.Linear(64, emb_dim))
        # embeddings computed in advance and stored in the model
        self.register_buffer("saved_embeddings", torch.randn(num_refs, emb_dim))

    def forward(self, x, th):
        emb = self.encoder(x)
        dist = torch.cdist(emb, self.saved_embeddings)
        min_dist, idx = dist.min(dim=1)
        matched = (min_dist < th).float()
        return min_dist, matched


def make_model():
    return EmbeddingMatcher().eval()


def example_inputs():
    return (torch.randn(4, 32), torch.tensor(5.0))


def other_inputs():
    return [(torch.randn(7, 32), torch.tensor(4.0)), (torch.randn(1, 32), torch.tensor(6.0))]


def probe_inputs():
    return other_inputs()
