"""Tension Board climbing-grade model (geometry-biased graph transformer over the holds of a problem): the board
angle is turned into radians with `torch.deg2rad` for the angle embedding and the per-pair geometry bias; "`aten::deg2rad`
has no ONNX symbolic function and blocks the export outright", so the model now multiplies by pi/180.

Source: https://github.com/AlGrade/tension-board-lab
"""
import math

import torch
from torch import Tensor, nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {
    "hold_type_ids": {0: "batch", 1: "holds"},
    "orientations": {0: "batch", 1: "holds"},
    "roles": {0: "batch", 1: "holds"},
    "coordinates": {0: "batch", 1: "holds"},
    "mask": {0: "batch", 1: "holds"},
    "angles": {0: "batch"},
}
BLIND = "operators-20"


class GraphAttentionBlock(nn.Module):
    """Self-attention with a learned bias for every relative hold geometry."""

    def __init__(self, width=32, heads=4, expansion=4, dropout=0.12):
        super().__init__()
        self.heads = heads
        self.head_width = width // heads
        self.norm_attention = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, width * 3, bias=False)
        self.geometry_bias = nn.Sequential(nn.Linear(8, width // 2), nn.GELU(), nn.Linear(width // 2, heads))
        self.attention_dropout = nn.Dropout(dropout)
        self.output = nn.Linear(width, width)
        self.norm_feed_forward = nn.LayerNorm(width)
        self.feed_forward = nn.Sequential(nn.Linear(width, width * expansion), nn.GELU(),
                                          nn.Linear(width * expansion, width))

    def forward(self, nodes: Tensor, coordinates: Tensor, mask: Tensor, angles: Tensor) -> Tensor:
        batch, node_count, width = nodes.shape
        normalized = self.norm_attention(nodes)
        qkv = self.qkv(normalized).view(batch, node_count, 3, self.heads, self.head_width)
        query, key, value = qkv.unbind(dim=2)
        query, key, value = query.transpose(1, 2), key.transpose(1, 2), value.transpose(1, 2)

        delta = coordinates[:, :, None, :] - coordinates[:, None, :, :]
        dx, dy = delta.unbind(dim=-1)
        distance = torch.sqrt(dx.square() + dy.square() + 1e-8)
        radians = torch.deg2rad(angles).view(-1, 1, 1)
        geometry = torch.stack((dx, dy, dx.abs(), dy.abs(), distance,
                                dy * radians.cos(), dy * radians.sin(), dy.sign()), dim=-1)
        bias = self.geometry_bias(geometry).permute(0, 3, 1, 2)

        scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(self.head_width)
        scores = scores + bias
        scores = scores.masked_fill(~mask[:, None, None, :], torch.finfo(scores.dtype).min)
        attention = self.attention_dropout(scores.softmax(dim=-1))
        attended = torch.matmul(attention, value).transpose(1, 2).reshape(batch, node_count, width)
        nodes = nodes + self.output(attended)
        nodes = nodes + self.feed_forward(self.norm_feed_forward(nodes))
        return nodes * mask.unsqueeze(-1)


class TensionGradeTransformer(nn.Module):
    def __init__(self, num_hold_types=6, num_grades=20, num_roles=4, width=32, layers=2):
        super().__init__()
        self.hold_type_embedding = nn.Embedding(num_hold_types + 1, width)
        self.role_embedding = nn.Embedding(num_roles, width)
        self.orientation_embedding = nn.Sequential(nn.Linear(2, width), nn.GELU(), nn.Linear(width, width))
        self.angle_embedding = nn.Sequential(nn.Linear(3, width), nn.GELU(), nn.Linear(width, width))
        self.coordinate_embedding = nn.Sequential(nn.Linear(2, width), nn.GELU(), nn.Linear(width, width))
        self.input_norm = nn.LayerNorm(width)
        self.blocks = nn.ModuleList(GraphAttentionBlock(width) for _ in range(layers))
        self.pool_gate = nn.Sequential(nn.LayerNorm(width), nn.Linear(width, 1, bias=False))
        self.head = nn.Sequential(nn.LayerNorm(width), nn.Linear(width, width), nn.GELU(),
                                  nn.Linear(width, num_grades))

    def forward(self, hold_type_ids, orientations, roles, coordinates, mask, angles):
        radians = torch.deg2rad(angles)
        angle_features = torch.stack((angles / 90.0, radians.sin(), radians.cos()), dim=-1)
        angle_context = self.angle_embedding(angle_features)
        nodes = (self.hold_type_embedding(hold_type_ids) + self.orientation_embedding(orientations)
                 + self.role_embedding(roles) + self.coordinate_embedding(coordinates)
                 + angle_context.unsqueeze(1))
        nodes = self.input_norm(nodes) * mask.unsqueeze(-1)
        for block in self.blocks:
            nodes = block(nodes, coordinates, mask, angles)
        pool_scores = self.pool_gate(nodes).squeeze(-1)
        pool_scores = pool_scores.masked_fill(~mask, torch.finfo(pool_scores.dtype).min)
        pooled = (pool_scores.softmax(dim=-1).unsqueeze(-1) * nodes).sum(dim=1)
        return self.head(pooled + angle_context)


def _inputs(b, n):
    mask = torch.ones(b, n, dtype=torch.bool)
    mask[0, n - 2:] = False
    return (torch.randint(0, 7, (b, n)), torch.randn(b, n, 2), torch.randint(0, 4, (b, n)),
            torch.rand(b, n, 2), mask, torch.randint(0, 8, (b,)).float() * 10.0)


def make_model():
    return TensionGradeTransformer().eval()


def example_inputs():
    return _inputs(2, 9)


def other_inputs():
    return [_inputs(3, 12), _inputs(1, 6)]


def probe_inputs():
    return other_inputs()
