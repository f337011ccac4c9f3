"""ONX705 on a mask written as a comparison: transformers' SAM prompt encoder (before #22915)
zeroes the padding points with `point_embedding[labels == -1] = 0.0`, then adds an embedding row
per label (`point_embedding[labels == -1] += self.not_a_point_embed.weight`): masks over (batch,
points) of (batch, points, hidden). The legacy exporter writes the fill as a Where of the mask
against the tensor without its hidden axis: onnxruntime fails on every input (the updates export
here, as a masked scatter; in SAM's own shapes they fail too). The fix fills through the mask with its
missing axis of size 1 (safe), and updates through `torch.where` (unsafe: the value must be a row).
SAM 2 gets the embedding from another method of a submodule (`self.pe_layer.forward_with_coords`)."""
import torch
from torch import nn


class PositionEmbedding(nn.Module):
    def __init__(self, hidden=8):
        super().__init__()
        self.proj = nn.Linear(2, hidden)

    def forward_with_coords(self, coords, size: float):
        return self.proj(coords / size)


class PromptEncoder(nn.Module):
    def __init__(self, hidden=8):
        super().__init__()
        self.shared_embedding = nn.Linear(2, hidden)
        self.pe_layer = PositionEmbedding(hidden)
        self.not_a_point_embed = nn.Embedding(1, hidden)
        self.point_embed = nn.ModuleList([nn.Embedding(1, hidden) for _ in range(2)])

    def forward(self, points: torch.Tensor, labels: torch.Tensor):
        point_embedding = self.shared_embedding(points)
        point_embedding[labels == -1] = 0.0
        point_embedding[labels == -1] += self.not_a_point_embed.weight
        point_embedding[labels == 0] += self.point_embed[0].weight
        point_embedding[labels == 1] += self.point_embed[1].weight
        positions = self.pe_layer.forward_with_coords(points, 4.0)  # SAM 2: another method of a submodule
        positions[labels == -1] = 0.0
        return point_embedding.sum(1) + positions.sum(1)


def make_model():
    torch.manual_seed(0)
    return PromptEncoder()


def _inputs(batch, points):
    labels = torch.arange(batch * points).reshape(batch, points) % 3 - 1
    return (torch.rand(batch, points, 2), labels)


def example_inputs():
    return _inputs(2, 5)


def probe_inputs():
    return [_inputs(3, 7), _inputs(1, 4)]


DYNAMIC = {0: {0: "batch", 1: "points"}, 1: {0: "batch", 1: "points"}}
