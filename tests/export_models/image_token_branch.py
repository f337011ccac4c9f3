"""Phi-3-vision's input embedding, cut down (pytorch/pytorch#128906): placeholder ids (negative)
mark image tokens, and the image branch runs only when there are some, `if positions.shape[0] > 0:`
on a count torch.export reads out of the data (no check is suggested: the guard is the test
itself). The run took the branch on every input, so ONX611 checks the test while exporting."""
import torch
from torch import nn


class ImageTokenEmbedding(nn.Module):
    def __init__(self, vocab=50, dim=8, feature_dim=6):
        super().__init__()
        self.wte = nn.Embedding(vocab, dim)
        self.proj = nn.Linear(feature_dim, dim)

    def forward(self, input_ids, image_features):
        positions = torch.nonzero(input_ids < 0)
        hidden = self.wte(input_ids.clamp_min(0))
        if positions.shape[0] > 0:
            rows, cols = positions[:, 0], positions[:, 1]
            features = self.proj(image_features)[-input_ids[rows, cols] - 1]
            hidden = hidden.index_put((rows, cols), features)
        return hidden


def make_model():
    torch.manual_seed(0)
    return ImageTokenEmbedding().eval()


def _batch(rows, seq, images, seed):
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, 50, (rows, seq), generator=g)
    for n in range(images):  # image token n (id -n - 1) somewhere in row n % rows
        ids[n % rows, 1 + 2 * (n // rows)] = -n - 1
    return ids, torch.randn(images, 6, generator=g)


def example_inputs():
    return _batch(2, 10, 3, 0)


def probe_inputs():
    return [_batch(3, 12, 5, 1), _batch(1, 7, 2, 2)]


DYNAMIC = {"input_ids": {0: "batch", 1: "sequence"}, "image_features": {0: "images"}}
