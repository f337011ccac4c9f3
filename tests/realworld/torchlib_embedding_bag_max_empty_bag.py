"""An EmbeddingBag pooling layer in mode="max" whose offsets contain an empty bag (two equal offsets, as in
offsets=[0, 0, 3]); the onnxscript torch_lib test suite reports the exported embedding_bag(mode='max') output
mismatching PyTorch for exactly that sample (indices [0, 7, 7, 2, 5], offsets [0, 0, 3]).

Source: https://github.com/microsoft/onnxscript/issues/1056
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"input": {0: "num_indices"}, "offsets": {0: "num_bags"}}
BLIND = "operators-16"


class BagMaxPooler(nn.Module):
    """Sparse feature bag -> max-pooled embedding -> small projection head."""

    def __init__(self, num_embeddings=10, embedding_dim=5):
        super().__init__()
        self.bag = nn.EmbeddingBag(num_embeddings, embedding_dim, mode="max")
        self.proj = nn.Linear(embedding_dim, 3)

    def forward(self, input, offsets):
        pooled = self.bag(input, offsets=offsets)
        return self.proj(pooled)


def make_model():
    return BagMaxPooler().eval()


def example_inputs():
    return (torch.tensor([0, 7, 7, 2, 5]), torch.tensor([0, 0, 3]))


def other_inputs():
    return [
        (torch.tensor([1, 4, 9, 9, 3, 0, 2]), torch.tensor([0, 2, 2, 5])),
        (torch.tensor([6, 8, 1, 2]), torch.tensor([0, 0])),
    ]


def probe_inputs():
    return other_inputs()
